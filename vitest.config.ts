// Unit and integration tests, run inside workerd against real D1, KV and
// Durable Objects (Miniflare), with the project's own wrangler.toml.
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig(async () => ({
  // Vite warns about every dependency whose source map names files its package does not ship
  // (hundreds of lines from the MCP SDK); test failures and errors still print.
  logLevel: "error" as const,
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        // Test-only binding: the setup file applies these migrations to each test's D1.
        bindings: { TEST_MIGRATIONS: await readD1Migrations("./migrations") },
      },
    }),
  ],
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/e2e/**"],
    setupFiles: ["./test/apply-migrations.ts"],
    // Vitest's default is one worker per core less one: a single worker on 2 cores, which leaves a core
    // idle while a file's Miniflare starts. Each file still gets a Miniflare (and storage) of its own.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Quota tests may wait up to 8 s for a fresh calendar minute (test/quota/clock.ts).
    testTimeout: 30_000,
  },
}));
