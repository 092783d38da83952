// End-to-end tests: one real dev server (`npm start` on a free port, fresh
// local state) driven from Node by real clients.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/e2e/**/*.e2e.test.ts"],
    globalSetup: ["./test/e2e/support/global-setup.ts"],
    // Generous: a test that starts servers of its own shares 2 cores with another file.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // A page's panels answer after a real search on a loaded 2-core machine: a second, not the default's 1 s, is too short.
    expect: { poll: { timeout: 15_000 } },
    // Two files at a time: much of a file's time is spent waiting on a server or a CLI it started.
    // Nothing writes to the shared server's state once files run (its keys are made in global-setup.ts),
    // and CLI commands on one state folder take turns (cli/state-lock.ts).
    fileParallelism: true,
    maxWorkers: 2,
  },
});
