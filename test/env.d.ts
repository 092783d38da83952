import type { D1Migration } from "cloudflare:test";

declare global {
  /** Test-only binding defined in vitest.config.ts, applied by test/apply-migrations.ts. */
  interface TestBindings {
    TEST_MIGRATIONS: D1Migration[];
  }
  // Both names of the Worker's Env must agree, or McpAgent<Env> stops type-checking.
  interface Env extends TestBindings {}
  namespace Cloudflare {
    interface Env extends TestBindings {}
  }
}
