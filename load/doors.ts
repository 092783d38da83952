// The five doors a caller can use, and what a caller does at each: the
// requests real clients send, over plain HTTP as they go on the wire (a
// 2025-era session through the SDK's own client), each timed and classified.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { parseServerTiming } from "../bench/mcp-client.ts";

/** Where a request goes in. */
export type Door = "mcp-2026" | "mcp-2025" | "rest" | "resources" | "web" | "floor";

/** The doors of the mix; "floor" (a request with one tiny query, one with none) is measured alone, never drawn. */
export const DOORS: readonly Door[] = ["mcp-2026", "mcp-2025", "rest", "resources", "web"];

/** What the load needs of the corpus, read from the server once before it starts. */
export interface Corpus {
  queries: readonly string[];
  /** Document names (`documents/…`) and their resource uris, index for index. */
  names: readonly string[];
  uris: readonly string[];
}

/** How one request ended: undefined when it succeeded, else its kind (`HTTP 429`, `JSON-RPC -32602`, `tool INVALID_ARGUMENT`, `timeout`, `network`). */
export type ErrorKind = string | undefined;

/** One request as the caller saw it. */
export interface Outcome {
  door: Door;
  operation: string;
  ms: number;
  error: ErrorKind;
  /** The Worker's own time for it (`Server-Timing: total`), when the response said. */
  workerMs?: number;
}

/** The 2026-07-28 request envelope: protocol version, client info and capabilities in `_meta`, no session. */
const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "almanac-load", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** A fetch that gives up after `timeoutMs`, and reads the whole body (as a client must before the next request). */
async function timedFetch(url: URL | string, init: RequestInit, timeoutMs: number): Promise<{ status: number; body: string; headers: Headers } | { error: ErrorKind }> {
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    return { status: response.status, body: await response.text(), headers: response.headers };
  } catch (error) {
    return { error: isTimeout(error) ? "timeout" : "network" };
  }
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError" || /timed? ?out/i.test(error.message));
}

/** The first word of a tool error's text: Almanac's errors begin with their status (`INVALID_ARGUMENT: …`). */
function toolErrorKind(text: string | undefined): string {
  return `tool ${/^[A-Z_]+/.exec(text ?? "")?.[0] ?? "error"}`;
}

/** A JSON-RPC response body's outcome: its error code, a tool's isError, or success. */
function jsonRpcError(body: string): ErrorKind {
  let message: { error?: { code?: number }; result?: { isError?: boolean; content?: { text?: string }[] } };
  try {
    message = JSON.parse(body);
  } catch {
    return "bad JSON";
  }
  if (message.error) return `JSON-RPC ${message.error.code ?? "?"}`;
  if (message.result?.isError) return toolErrorKind(message.result.content?.[0]?.text);
  return undefined;
}

/** What each caller holds: its key, its random draw, its 2025-era session. */
export interface Caller {
  url: string;
  key: string | undefined;
  random: () => number;
  corpus: Corpus;
  timeoutMs: number;
  session?: Client;
}

type Step = (caller: Caller) => Promise<Omit<Outcome, "ms" | "door" | "operation">>;

function pick<T>(caller: Caller, items: readonly T[]): T {
  return items[Math.floor(caller.random() * items.length)] as T;
}

/** 1–5 distinct document names, as a model asks for a few pages at once. */
function someNames(caller: Caller): string[] {
  const count = 1 + Math.floor(caller.random() * 5);
  return [...new Set(Array.from({ length: count }, () => pick(caller, caller.corpus.names)))];
}

function keyHeaders(caller: Caller): Record<string, string> {
  return caller.key ? { "X-Goog-Api-Key": caller.key } : {};
}

/** A 2026-07-28 request as the revision puts it on the wire: the method (and its name) mirrored in headers, the envelope in `_meta`. */
function modern(method: string, params: Record<string, unknown>, name?: string): Step {
  return async (caller) => {
    const headers: Record<string, string> = {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": "2026-07-28",
      "Mcp-Method": method,
      ...(name === undefined ? {} : { "Mcp-Name": name }),
      ...keyHeaders(caller),
    };
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: MODERN_META } });
    const response = await timedFetch(new URL("/mcp", caller.url), { method: "POST", headers, body }, caller.timeoutMs);
    if ("error" in response) return { error: response.error };
    const workerMs = parseServerTiming(response.headers.get("server-timing")).get("total");
    if (response.status !== 200) return { error: `HTTP ${response.status}`, workerMs };
    return { error: jsonRpcError(response.body), workerMs };
  };
}

function modernTool(tool: string, args: (caller: Caller) => Record<string, unknown>): Step {
  return (caller) => modern("tools/call", { name: tool, arguments: args(caller) }, tool)(caller);
}

/** A tool call in the caller's 2025-era session, through the SDK client. */
function sessionTool(tool: string, args: (caller: Caller) => Record<string, unknown>): Step {
  return async (caller) => {
    if (!caller.session) return { error: "no session" };
    try {
      const result = await caller.session.callTool({ name: tool, arguments: args(caller) }, undefined, { timeout: caller.timeoutMs });
      const content = result.content as { text?: string }[] | undefined;
      return { error: result.isError ? toolErrorKind(content?.[0]?.text) : undefined };
    } catch (error) {
      return { error: sdkErrorKind(error) };
    }
  };
}

/** An SDK client's failure as an error kind. */
export function sdkErrorKind(error: unknown): string {
  if (error instanceof StreamableHTTPError) return `HTTP ${error.code ?? "?"}`;
  // -32001 is the SDK's own request timeout.
  if (error instanceof McpError) return error.code === -32001 ? "timeout" : `JSON-RPC ${error.code}`;
  return isTimeout(error) ? "timeout" : "network";
}

/** A plain GET or form POST, a success being any 2xx. */
function http(path: (caller: Caller) => string, init: (caller: Caller) => RequestInit = () => ({})): Step {
  return async (caller) => {
    const response = await timedFetch(new URL(path(caller), caller.url), init(caller), caller.timeoutMs);
    if ("error" in response) return { error: response.error };
    const workerMs = parseServerTiming(response.headers.get("server-timing")).get("total");
    return { error: response.status >= 200 && response.status < 300 ? undefined : `HTTP ${response.status}`, workerMs };
  };
}

const query = (caller: Caller) => ({ query: pick(caller, caller.corpus.queries) });
const names = (caller: Caller) => ({ names: someNames(caller) });
const queryParam = (caller: Caller) => new URLSearchParams({ query: pick(caller, caller.corpus.queries) }).toString();

/** An operation: its door, its name, how often it is drawn within its door, and what it sends. */
interface Operation {
  door: Door;
  operation: string;
  weight: number;
  step: Step;
}

/**
 * The mix. Doors carry the traffic of the clients behind them: MCP clients
 * most (2026-07-28 and 2025 sessions), then REST, people on the landing
 * page, and resource reads. Within each, searches and page reads mostly, and
 * some answers (the only requests the quota counts).
 */
const DOOR_WEIGHTS: Record<Door, number> = { "mcp-2026": 30, "mcp-2025": 25, rest: 20, resources: 10, web: 15, floor: 0 };

const OPERATIONS: readonly Operation[] = [
  { door: "mcp-2026", operation: "search_documents", weight: 60, step: modernTool("search_documents", query) },
  { door: "mcp-2026", operation: "get_documents", weight: 30, step: modernTool("get_documents", names) },
  { door: "mcp-2026", operation: "answer_query", weight: 10, step: modernTool("answer_query", query) },
  { door: "mcp-2025", operation: "search_documents", weight: 60, step: sessionTool("search_documents", query) },
  { door: "mcp-2025", operation: "get_documents", weight: 30, step: sessionTool("get_documents", names) },
  { door: "mcp-2025", operation: "answer_query", weight: 10, step: sessionTool("answer_query", query) },
  { door: "rest", operation: "searchDocumentChunks", weight: 55, step: http((c) => `/v1/documents:searchDocumentChunks?${queryParam(c)}`, (c) => ({ headers: keyHeaders(c) })) },
  {
    door: "rest",
    operation: "batchGet",
    weight: 20,
    step: http((c) => `/v1/documents:batchGet?${someNames(c).map((name) => `names=${encodeURIComponent(name)}`).join("&")}`, (c) => ({ headers: keyHeaders(c) })),
  },
  { door: "rest", operation: "get", weight: 15, step: http((c) => `/v1/${pick(c, c.corpus.names)}`, (c) => ({ headers: keyHeaders(c) })) },
  {
    door: "rest",
    operation: "answerQuery",
    weight: 10,
    step: http(
      () => "/v1:answerQuery",
      (c) => ({ method: "POST", headers: { ...keyHeaders(c), "Content-Type": "application/json" }, body: JSON.stringify(query(c)) }),
    ),
  },
  { door: "resources", operation: "resources/list", weight: 30, step: modern("resources/list", {}) },
  {
    door: "resources",
    operation: "resources/read",
    weight: 70,
    step: async (caller) => {
      const uri = pick(caller, caller.corpus.uris);
      return modern("resources/read", { uri }, uri)(caller);
    },
  },
  { door: "web", operation: "GET /", weight: 30, step: http(() => "/") },
  { door: "floor", operation: "/healthz", weight: 1, step: http(() => "/healthz") },
  // A 404 for an unknown path: no I/O at all, the dev server's own floor.
  { door: "floor", operation: "404", weight: 1, step: async (caller) => ({ ...(await http(() => "/load-floor")(caller)), error: undefined }) },
  { door: "web", operation: "/try/search", weight: 45, step: http((c) => `/try/search?${queryParam(c)}`) },
  { door: "web", operation: "/try/library", weight: 10, step: http(() => "/try/library?intent=list+EC2+instances+in+a+region") },
  {
    door: "web",
    operation: "/try/ask",
    weight: 15,
    // The ask form sends the key in its body (a form cannot set headers).
    step: http(
      () => "/try/ask",
      (c) => ({
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ ...query(c), ...(c.key ? { key: c.key } : {}) }).toString(),
      }),
    ),
  },
];

function weighted<T extends { weight: number }>(random: () => number, items: readonly T[]): T {
  let draw = random() * items.reduce((sum, item) => sum + item.weight, 0);
  for (const item of items) {
    draw -= item.weight;
    if (draw < 0) return item;
  }
  return items[items.length - 1] as T;
}

/** Draws the caller's next request from the mix, sends it and times it. */
export async function nextRequest(caller: Caller): Promise<Outcome> {
  const doors = DOORS.map((door) => ({ door, weight: DOOR_WEIGHTS[door] }));
  const { door } = weighted(caller.random, doors);
  const { operation, step } = weighted(
    caller.random,
    OPERATIONS.filter((candidate) => candidate.door === door),
  );
  const started = performance.now();
  const outcome = await step(caller);
  return { door, operation, ms: performance.now() - started, ...outcome };
}

/** The operations of the mix, door by door, for measuring each on its own. */
export function operations(): readonly Pick<Operation, "door" | "operation">[] {
  return OPERATIONS;
}

/** Sends one request of the named operation and times it. */
export async function sendOperation(caller: Caller, door: Door, operation: string): Promise<Outcome> {
  const found = OPERATIONS.find((candidate) => candidate.door === door && candidate.operation === operation);
  if (!found) throw new Error(`no operation ${operation} at door ${door}`);
  const started = performance.now();
  const outcome = await found.step(caller);
  return { door, operation, ms: performance.now() - started, ...outcome };
}

/** Every operation once, in order: warms the Worker's code paths before anything is timed; returns what failed. */
export async function warmUp(caller: Caller): Promise<string[]> {
  const failed: string[] = [];
  for (const { door, operation, step } of OPERATIONS) {
    const { error } = await step(caller);
    if (error) failed.push(`${door} ${operation}: ${error}`);
  }
  return failed;
}

/**
 * Opens the caller's 2025-era session with the SDK client (initialize and
 * the initialized notification, then the SDK's standing GET stream), as an
 * MCP client does once before its calls. Returns the time it took.
 */
export async function openSession(caller: Caller): Promise<{ ms: number; error: ErrorKind }> {
  const started = performance.now();
  const client = new Client({ name: "almanac-load", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL("/mcp", caller.url), { requestInit: { headers: keyHeaders(caller) } });
  try {
    await client.connect(transport, { timeout: caller.timeoutMs });
    caller.session = client;
    return { ms: performance.now() - started, error: undefined };
  } catch (error) {
    await client.close().catch(() => undefined);
    return { ms: performance.now() - started, error: sdkErrorKind(error) };
  }
}

/** Ends the caller's session as a client that is done does: DELETE, then close the stream. */
export async function closeSession(caller: Caller): Promise<void> {
  const client = caller.session;
  caller.session = undefined;
  if (!client) return;
  const transport = client.transport as StreamableHTTPClientTransport | undefined;
  await transport?.terminateSession().catch(() => undefined);
  await client.close().catch(() => undefined);
}

/**
 * The corpus as the server lists it (resources/list, first page) and the
 * questions to ask it: the evaluation's questions over the default corpus.
 */
export async function readCorpus(url: string, key: string | undefined, queries: readonly string[]): Promise<Corpus> {
  const response = await fetch(new URL("/mcp", url), {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": "2026-07-28",
      "Mcp-Method": "resources/list",
      ...(key ? { "X-Goog-Api-Key": key } : {}),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "resources/list", params: { _meta: MODERN_META } }),
  });
  const body = (await response.json()) as { result?: { resources: { uri: string; name: string }[] }; error?: { message: string } };
  const resources = body.result?.resources ?? [];
  if (resources.length === 0) throw new Error(`the server at ${url} lists no documents (resources/list: ${response.status} ${JSON.stringify(body.error ?? body).slice(0, 200)})`);
  return { queries, names: resources.map((r) => r.name), uris: resources.map((r) => r.uri) };
}
