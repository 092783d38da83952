// Runs before every test file. applyD1Migrations records what it applied in
// the d1_migrations table and skips those, so running it repeatedly is safe.
import { applyD1Migrations, env } from "cloudflare:test";

await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
