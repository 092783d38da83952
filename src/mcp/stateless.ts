// MCP 2026-07-28, the stateless revision: no handshake, no session; every
// request carries its protocol version and client info in `_meta`. Served in
// the Worker itself by SDK v2's handler, a fresh server per request, with
// Almanac's era-free methods (methods.ts) installed on it.
import { type CacheHint, Server, createMcpHandler } from "@modelcontextprotocol/server";
import { type McpCaller, SERVER_CAPABILITIES, SERVER_INFO, SERVER_INSTRUCTIONS, almanacMethods } from "./methods.ts";

/**
 * How long clients and shared caches may keep list and read results
 * (2026-07-28 `ttlMs`/`cacheScope`). Every keyless caller sees the same
 * corpus and tools, so its results are `public`; a key may open restricted
 * data sources, so its listings and reads are `private` (cacheHintsFor).
 * The tool list and the template change only
 * with a deployment: an hour. Documents change when someone ingests: a
 * listing or a page may be a minute old, which a documentation reader never
 * notices and which spares the database the repeat reads of a busy client.
 */
const CACHE_HINTS: Record<"tools/list" | "resources/list" | "resources/templates/list" | "resources/read" | "server/discover", CacheHint> = {
  "server/discover": { ttlMs: 3_600_000, cacheScope: "public" },
  "tools/list": { ttlMs: 3_600_000, cacheScope: "public" },
  "resources/templates/list": { ttlMs: 3_600_000, cacheScope: "public" },
  "resources/list": { ttlMs: 60_000, cacheScope: "public" },
  "resources/read": { ttlMs: 60_000, cacheScope: "public" },
};

/** The hints for `caller`: a keyed caller's corpus is its own, so its listings and reads stay in its own cache. */
function cacheHintsFor(caller: McpCaller): typeof CACHE_HINTS {
  if (caller.keyId === null) return CACHE_HINTS;
  return {
    ...CACHE_HINTS,
    "resources/list": { ...CACHE_HINTS["resources/list"], cacheScope: "private" },
    "resources/read": { ...CACHE_HINTS["resources/read"], cacheScope: "private" },
  };
}

/**
 * A server for one request. The SDK's low-level Server, not McpServer:
 * Almanac answers tools and resources from its own method table, the same
 * table the 2025-era session installs on SDK v1, so the two eras cannot drift.
 */
function almanacServer(env: Env, caller: McpCaller): Server {
  const server = new Server(SERVER_INFO, { capabilities: SERVER_CAPABILITIES, instructions: SERVER_INSTRUCTIONS, cacheHints: cacheHintsFor(caller) });
  const methods = almanacMethods(env, undefined, () => caller);
  // The SDK has checked each request against its schema; a thrown McpMethodError keeps its code and data.
  server.setRequestHandler("tools/list", () => methods["tools/list"]());
  server.setRequestHandler("tools/call", (request) => methods["tools/call"](request.params));
  server.setRequestHandler("resources/list", (request) => methods["resources/list"](request.params));
  server.setRequestHandler("resources/templates/list", () => methods["resources/templates/list"]());
  server.setRequestHandler("resources/read", (request) => methods["resources/read"](request.params));
  server.setRequestHandler("completion/complete", (request) => methods["completion/complete"](request.params));
  return server;
}

/**
 * Serves one 2026-07-28 request (anything the SDK's classifier does not call
 * legacy): the SDK's own validation ladder answers malformed envelopes,
 * header mismatches and unsupported versions; `legacy: "reject"` because
 * 2025-era traffic never reaches here (it has its Durable Object session).
 * Results come as one JSON body, since no method sends anything before its
 * result (the SDK's "auto" response mode streams only when one does).
 */
export function serveStateless(request: Request, env: Env, caller: McpCaller): Promise<Response> {
  const handler = createMcpHandler(() => almanacServer(env, caller), { legacy: "reject" });
  return handler.fetch(request);
}
