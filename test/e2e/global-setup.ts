import type { TestProject } from "vitest/node";
import { startServer, type RunningServer } from "./harness.ts";

let server: RunningServer | undefined;

/** One server for every e2e file, with the conformance suite's test tool enabled and anonymous limits no file order can exhaust. */
export async function setup(project: TestProject): Promise<void> {
  server = await startServer([
    ...["--var", "CONFORMANCE_TOOL:on"],
    // Every file here asks as the same anonymous caller (the dev server sees one address), so the
    // public tier's 3 answers a minute would make their answer_query calls depend on file order and
    // timing. The limits themselves are tested on quota.e2e's own server.
    ...["--var", "QUOTA_PUBLIC_ANSWER_PER_MINUTE:60", "--var", "QUOTA_PUBLIC_ANSWER_PER_DAY:1000"],
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
