// Two versions of one site through the CLI and the real dev server: v2 is
// current once added, googleapis and an MCP client see it, a filter picks v1,
// `--version v1 --current` flips every result, and `remove-version` removes
// exactly v2's pages, all while the server runs.
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { google } from "googleapis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newStateDir, startServer, type RunningServer } from "./support/harness.ts";

const stateDir = newStateDir();
let server: RunningServer;

function cli(args: string[]) {
  const run = spawnSync(process.execPath, ["cli/ingest.ts", ...args, "--persist-to", stateDir], { encoding: "utf8", timeout: 120_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

const ingest = (label: string, ...extra: string[]) =>
  cli(["docs", `test/fixtures/versions/${label}`, "--base-uri", `https://bundlr.example/${label}`, "--version", label, ...extra]);

type Json = any;

async function mcp<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ name: "versions-e2e", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", server.url)));
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}

const searchVersions = async (filter?: string) =>
  mcp(async (client) => {
    const result = await client.callTool({ name: "search_documents", arguments: { query: "output directory option", ...(filter ? { filter } : {}) } });
    return [...new Set((result.structuredContent as Json).results.map((hit: Json) => hit.document.version))];
  });

beforeAll(async () => {
  const v1 = ingest("v1");
  expect(v1.status, v1.output).toBe(0);
  expect(v1.output).toContain('version "v1" of bundlr.example, pages named under https://bundlr.example/v1: current');
  const v2 = ingest("v2");
  expect(v2.status, v2.output).toBe(0);
  expect(v2.output).toContain('version "v2" of bundlr.example, pages named under https://bundlr.example/v2: current (versions: "v1", "v2")');
  server = await startServer([], stateDir);
}, 240_000);

afterAll(async () => {
  await server?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

describe("versions ingested with the CLI, served by npm start", () => {
  it("serves v2 by default and v1 by filter, to googleapis and to an MCP client", async () => {
    const client = google.developerknowledge({ version: "v1", rootUrl: `${server.url}/` });
    const { data } = await client.documents.searchDocumentChunks({ query: "output directory option" });
    const [first] = data.results ?? [];
    expect(first?.parent).toBe("documents/bundlr.example/v2/build");
    expect((first?.document as Json).version).toBe("v2");
    expect(await searchVersions()).toEqual(["v2"]);
    expect(await searchVersions('version = "v1"')).toEqual(["v1"]);
    const answer = await mcp((c) => c.callTool({ name: "answer_query", arguments: { query: "What is the default build timeout of bundlr?" } }));
    expect((answer.structuredContent as Json).answerText).toContain("120 seconds");
  });

  it("refuses a second version under a base URI that holds one, and writes nothing", () => {
    const run = cli(["docs", "test/fixtures/versions/v2", "--base-uri", "https://bundlr.example/v1", "--version", "v2"]);
    expect(run.status).toBe(1);
    expect(run.output).toContain('https://bundlr.example/v1 holds version "v1" of bundlr.example');
  });

  it("flips every result when v1 is re-ingested with --current, and remove-version removes exactly v2", async () => {
    const flip = ingest("v1", "--current");
    expect(flip.status, flip.output).toBe(0);
    expect(flip.output).toContain("2 unchanged");
    expect(await searchVersions()).toEqual(["v1"]);
    const removed = cli(["remove-version", "v2", "--data-source", "bundlr.example"]);
    expect(removed.status, removed.output).toBe(0);
    expect(removed.output).toContain('version "v2" of bundlr.example (https://bundlr.example/v2): 2 pages removed');
    expect(await searchVersions('version = "*"')).toEqual(["v1"]);
    const gone = await fetch(`${server.url}/v1/documents/bundlr.example/v2/build`);
    expect(gone.status).toBe(404);
  });
});
