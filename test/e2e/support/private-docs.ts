// What the private-documentation end-to-end test (private-docs.e2e.test.ts)
// uses besides its one server: the two data sources and their pages, the
// words only the restricted one holds, the CLI on the test's state, the three
// kinds of caller and the server's doors as each knows them (REST, web pages,
// MCP clients of either protocol era), and page tokens and cursors forged as
// an attacker would.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as LegacyTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect } from "vitest";

export const PUBLIC = "zorblat.example";
export const HIDDEN = "runbooks.internal.example";
/** Words only the restricted pages hold: none may reach a caller without audience ops. */
const SECRETS = [HIDDEN, "runbooks", "quillfeather", "45 seconds", "escalation bridge", "on-call"];
export const HIDDEN_PAGE = `documents/${HIDDEN}/v2/rotate`;
export const MISSING_PAGE = `documents/${HIDDEN}/v2/no-such-page`;
export const PUBLIC_PAGE = `documents/${PUBLIC}/widgets`;
/** Words both sources hold: the public timeout, and the restricted one during a rotation. */
export const MIXED_QUERY = "zorblat widget timeout seconds rotation";
/**
 * A question naming both sources ("zorblat" is zorblat.example's first host
 * label, "runbooks" runbooks.internal.example's): an answer quotes the data
 * sources the question names (answer-query.ts, answerSources), so the right
 * key's answer draws on both, and the others' on the public one alone.
 */
export const MIXED_QUESTION = "What is the zorblat widget timeout, and what do the runbooks raise it to during a rotation?";
export const RIGHT_MIXED_REFERENCES = [HIDDEN_PAGE, PUBLIC_PAGE];

export type Json = any;
export type Who = "anonymous" | "wrong audience" | "right audience";

/** A runner of the CLI's scripts (`cli/ingest.ts`, …) on the state in `stateDir`: each run's output, the test failing on a non-zero exit. */
export function cliIn(stateDir: string): (script: string, args: string[]) => string {
  return (script, args) => {
    const run = spawnSync(process.execPath, [script, ...args, "--persist-to", stateDir], { encoding: "utf8", timeout: 120_000 });
    expect(run.status, `${run.stdout}${run.stderr}`).toBe(0);
    return run.stdout;
  };
}

/** The callers who must see nothing of the restricted source. */
export const WRONG: Who[] = ["anonymous", "wrong audience"];

/** Fails naming the secret when any restricted word is in `text` (case-insensitive). */
export function expectNoSecret(text: string): void {
  const lower = text.toLowerCase();
  for (const secret of SECRETS) expect(lower, `leaked "${secret}"`).not.toContain(secret.toLowerCase());
}

/** The page token search would issue for `offset` of `query` (search-documents.ts): forged, as an attacker can. */
export function forgedToken(offset: number, query: string, filter = ""): string {
  const key = createHash("sha256").update(JSON.stringify([query, filter])).digest("hex").slice(0, 12);
  return Buffer.from(`${offset}.${key}`).toString("base64").replace(/=+$/, "");
}

/** One MCP client per era on the server at `serverUrl`, sending `headers` (the caller's key, if any). */
async function connectMcp(serverUrl: string, era: "2025" | "2026-07-28", headers: Record<string, string>): Promise<{ client: LegacyClient | ModernClient; close(): Promise<void> }> {
  const url = new URL("/mcp", serverUrl);
  const requestInit = { headers };
  if (era === "2025") {
    const client = new LegacyClient({ name: "private-e2e", version: "1.0.0" });
    await client.connect(new LegacyTransport(url, { requestInit }));
    return { client, close: () => client.close() };
  }
  const client = new ModernClient({ name: "private-e2e", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(new ModernTransport(url, { requestInit }));
  return { client, close: () => client.close() };
}

/** The API keys of audiences ops and sales, filled in once the test has created them. */
export type AudienceKeys = Record<"ops" | "sales", string>;

/**
 * The server's doors as each kind of caller knows them: `serverUrl()` is read
 * at each request (the server starts in beforeAll), `keys` when a caller sends one.
 */
export function callerDoors(serverUrl: () => string, keys: AudienceKeys) {
  function headersOf(who: Who): Record<string, string> {
    if (who === "anonymous") return {};
    return { "X-Goog-Api-Key": who === "right audience" ? keys.ops : keys.sales };
  }

  async function get(path: string, who: Who, extra: Record<string, string> = {}): Promise<{ status: number; body: string; headers: Headers }> {
    const response = await fetch(new URL(path, serverUrl()), { headers: { ...headersOf(who), ...extra } });
    return { status: response.status, body: await response.text(), headers: response.headers };
  }

  async function post(path: string, who: Who, body: unknown): Promise<{ status: number; body: string }> {
    const response = await fetch(new URL(path, serverUrl()), { method: "POST", headers: { ...headersOf(who), "Content-Type": "application/json" }, body: JSON.stringify(body) });
    return { status: response.status, body: await response.text() };
  }

  const search = (query: string, who: Who, more = "", pageSize = 20) =>
    get(`/v1/documents:searchDocumentChunks?query=${encodeURIComponent(query)}&pageSize=${pageSize}&prettyPrint=false${more}`, who);

  /** One MCP client per era, with the caller's key. */
  const mcpClient = (era: "2025" | "2026-07-28", who: Who) => connectMcp(serverUrl(), era, headersOf(who));

  return { headersOf, get, post, search, mcpClient };
}

type AnyClient = LegacyClient | ModernClient;
export const call = async (client: AnyClient, name: string, args: Record<string, unknown>): Promise<Json> => (client as LegacyClient).callTool({ name, arguments: args });
export const errorOf = async (work: Promise<unknown>): Promise<Json> => work.then(() => ({ code: "none" }), (error: Json) => ({ code: error.code, message: String(error.message), data: error.data }));

/** Every resource the client can list, following cursors. */
export async function allResources(client: AnyClient, cursor?: string): Promise<Json[]> {
  const listed: Json[] = [];
  let next = cursor;
  for (let pages = 0; pages < 20; pages++) {
    const page = (await (client as LegacyClient).listResources(next === undefined ? {} : { cursor: next })) as Json;
    listed.push(...page.resources);
    next = page.nextCursor;
    if (!next) break;
  }
  return listed;
}

/** A resources/list cursor placed right after `name`, forged as an attacker can. */
export const cursorAfter = (name: string) => Buffer.from(`after:${name}`).toString("base64");
