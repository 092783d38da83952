// End-to-end tests: one real dev server (`npm start` on a free port, fresh
// local state) driven from Node by real clients.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/e2e/**/*.e2e.test.ts"],
    globalSetup: ["./test/e2e/support/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // The files share one server; running them one after another keeps timings honest on 2 cores.
    fileParallelism: false,
  },
});
