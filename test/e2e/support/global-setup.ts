import type { TestProject } from "vitest/node";
import { startServer, type RunningServer } from "./harness.ts";

let server: RunningServer | undefined;

/**
 * Anonymous answers allowed on the shared server. Every e2e request comes from
 * 127.0.0.1, so all files share one anonymous allowance: at the default 3 a
 * minute, anonymous answer_query calls in one file (the hostile fuzzing, say)
 * made another file's fail with 429 depending on the clock. The limits
 * themselves are tested on a server of their own (quota.e2e.test.ts).
 */
const SHARED_PUBLIC_ANSWERS = "1000";

/** For the same reason, the sessions every file's clients open count as one caller's: room for all of them. */
const SHARED_SESSIONS = "100000";

/** One server for every e2e file, with the conformance suite's test tool enabled. */
export async function setup(project: TestProject): Promise<void> {
  server = await startServer([
    "--var",
    "CONFORMANCE_TOOL:on",
    "--var",
    `QUOTA_PUBLIC_ANSWER_PER_MINUTE:${SHARED_PUBLIC_ANSWERS}`,
    "--var",
    `QUOTA_PUBLIC_ANSWER_PER_DAY:${SHARED_PUBLIC_ANSWERS}`,
    "--var",
    `MCP_SESSIONS_PER_CALLER:${SHARED_SESSIONS}`,
  ]);
  project.provide("serverUrl", server.url);
  project.provide("stateDir", server.stateDir);
}

export async function teardown(): Promise<void> {
  await server?.stop();
}

declare module "vitest" {
  export interface ProvidedContext {
    serverUrl: string;
    /** The server's local state folder, for `npm run keys -- … --persist-to` while it runs. */
    stateDir: string;
  }
}
