import type { TestProject } from "vitest/node";
import { retriedWhileLocked, withMigratedLocalEnv } from "../../../cli/local-env.ts";
import { createApiKey } from "../../../src/auth/key-store.ts";
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

/**
 * The keys files on the shared server use, by label, written before any file runs. Files run two
 * at a time, and a key written into the server's local database while another file's requests are
 * served can fail those requests (two processes on one SQLite file; see cli/local-env.ts).
 */
const SHARED_KEYS = {
  "googleapis-e2e": { answerPerMinute: 100 },
  "googleapis-quota": { answerPerMinute: 1 },
  "agreement-e2e": { answerPerMinute: 100 },
  "hostile-other": {},
  "landing-desktop": { answerPerDay: 5 },
  "landing-spent": { answerPerDay: 1 },
  "landing-phone": { answerPerDay: 5 },
  "landing-no-js": { answerPerDay: 1 },
} satisfies Record<string, { answerPerMinute?: number; answerPerDay?: number }>;

type SharedKeyLabel = keyof typeof SHARED_KEYS;

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
  const stateDir = server.stateDir;
  const keys = await withMigratedLocalEnv(stateDir, async (env) => {
    const created: Partial<Record<SharedKeyLabel, string>> = {};
    for (const [label, limits] of Object.entries(SHARED_KEYS) as [SharedKeyLabel, { answerPerMinute?: number; answerPerDay?: number }][]) {
      created[label] = (await retriedWhileLocked(() => createApiKey(env.DB, { label, ...limits }))).key;
    }
    return created as Record<SharedKeyLabel, string>;
  });
  project.provide("serverUrl", server.url);
  project.provide("sharedKeys", keys);
}

export async function teardown(): Promise<void> {
  await server?.stop();
}

declare module "vitest" {
  export interface ProvidedContext {
    serverUrl: string;
    /** Keys on the shared server, by label (SHARED_KEYS). */
    sharedKeys: Record<SharedKeyLabel, string>;
  }
}
