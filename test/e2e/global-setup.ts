import type { TestProject } from "vitest/node";
import { startServer, type RunningServer } from "./harness.ts";

let server: RunningServer | undefined;

/** One server for every e2e file, with the conformance suite's test tool enabled. */
export async function setup(project: TestProject): Promise<void> {
  server = await startServer(["--var", "CONFORMANCE_TOOL:on"]);
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
