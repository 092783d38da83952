import type { D1Migration } from "cloudflare:test";

declare global {
  namespace Cloudflare {
    interface Env {
      /** Defined in vitest.config.ts; applied by test/apply-migrations.ts. */
      TEST_MIGRATIONS: D1Migration[];
    }
  }
}
