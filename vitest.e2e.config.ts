// End-to-end tests: one real dev server (`npm start` on a free port, fresh
// local state) driven from Node by real clients.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/e2e/**/*.e2e.test.ts"],
    globalSetup: ["./test/e2e/support/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // Two files at a time: most of a file's time is spent waiting on processes it starts (servers, CLI
    // runs, workerd), not computing. The files are independent: the shared server's state is the
    // default corpus plus API keys each file creates under its own label (every file that ingests or
    // sets its own limits starts a server on its own state folder and a free port), and the anonymous
    // allowance it shares is sized for the whole run (support/global-setup.ts).
    fileParallelism: true,
    maxWorkers: 2,
  },
});
