// Checks at the edge of /mcp, before either era's server or a Durable Object
// sees a request: whatever a client sends, what lies behind must stay within
// its limits, and a malformed request gets a prompt 4xx that says what is wrong.
import type { MiddlewareHandler } from "hono";
import { AlmanacError } from "../errors.ts";
import { type JsonRpcId, RefusalError } from "../http/refusal.ts";

/**
 * The limits, and why. The agents library keeps each 2025-era POST's request
 * ids and its URL in the WebSocket attachment of the session's Durable
 * Object, which holds at most 16 KiB: past it the response is lost and the
 * client waits forever. These bounds keep a whole batch's state under 8 KiB.
 * Real MCP traffic is far inside them: ids are counters or UUIDs, URLs a few
 * dozen bytes, batches a handful of messages.
 */
const MCP_REQUEST_LIMITS = {
  /** Bytes of the request URL (414 beyond). */
  urlBytes: 2048,
  /** Characters of a string JSON-RPC id. */
  idChars: 128,
  /** Messages in one JSON-RPC batch. */
  batchMessages: 32,
  /** Characters of an Mcp-Session-Id (agents issues 64 hex digits); a longer one is no session. */
  sessionIdChars: 128,
} as const;

/** The methods /mcp serves: Streamable HTTP's POST, GET and DELETE, and CORS preflights. */
const ALLOWED_METHODS = "GET, POST, DELETE, OPTIONS";

/**
 * What a browser client may send and read (CORS). Both eras' headers: the
 * 2026-07-28 ones (Mcp-Method, Mcp-Name) and the session's; both ways of
 * sending a key; the quota's headers, so a page can show the allowance.
 */
const PREFLIGHT_HEADERS = {
  "Access-Control-Allow-Methods": ALLOWED_METHODS,
  "Access-Control-Allow-Headers":
    "Content-Type, Accept, Authorization, X-Goog-Api-Key, Mcp-Session-Id, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID",
  "Access-Control-Expose-Headers": "Mcp-Session-Id, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, RateLimit-Policy",
  "Access-Control-Max-Age": "86400",
};

/** JSON-RPC 2.0: the message is not a valid request, notification or response. */
const INVALID_REQUEST = -32600;
/** JSON-RPC 2.0: the method's params are invalid. */
const INVALID_PARAMS = -32602;

/**
 * HTTP-level checks, before the body is read: the method, the URL's length,
 * `Upgrade` (/mcp speaks Streamable HTTP, never WebSocket: the agents
 * library's own WebSocket route must not be reachable from outside), and the
 * shape of an Mcp-Session-Id. A CORS preflight is answered here (204): the
 * origin guard in front has already decided whether its origin may call.
 * Refusals are thrown, and the /mcp onError answers them as JSON-RPC errors.
 *
 * @example mcp.use("/mcp", mcpOriginGuard(), checkMcpRequest(), readJsonRpcMessage(), checkJsonRpcMessages());
 */
export function checkMcpRequest(): MiddlewareHandler<{ Bindings: Env }> {
  return async (c, next) => {
    const method = c.req.method;
    if (method === "OPTIONS") {
      return c.body(null, 204, { ...PREFLIGHT_HEADERS, "Access-Control-Allow-Origin": c.req.header("origin") ?? "*", Vary: "Origin" });
    }
    if (!["GET", "POST", "DELETE"].includes(method)) {
      const error = new AlmanacError("INVALID_ARGUMENT", `${method} is not served at /mcp; MCP's Streamable HTTP uses POST (messages), GET (a 2025-era session's stream) and DELETE (ending that session)`, undefined, {
        headers: { Allow: ALLOWED_METHODS },
      });
      throw new RefusalError(error, { httpStatus: 405 });
    }
    const urlBytes = new TextEncoder().encode(c.req.url).byteLength;
    if (urlBytes > MCP_REQUEST_LIMITS.urlBytes) {
      const error = new AlmanacError("INVALID_ARGUMENT", `the URL is ${urlBytes} bytes long; /mcp accepts at most ${MCP_REQUEST_LIMITS.urlBytes}: send the API key in a header, and nothing else in the query string`);
      throw new RefusalError(error, { httpStatus: 414 });
    }
    if (c.req.header("upgrade") !== undefined) {
      throw new AlmanacError("INVALID_ARGUMENT", "/mcp speaks MCP's Streamable HTTP, not WebSocket; send the request again without an Upgrade header");
    }
    const sessionId = c.req.header("mcp-session-id");
    if (sessionId !== undefined && !isWellFormedSessionId(sessionId)) {
      const error = new AlmanacError("NOT_FOUND", "no MCP session has this Mcp-Session-Id (it is not one this server issues); start a new session with initialize");
      throw new RefusalError(error, { jsonRpcCode: -32001 });
    }
    await next();
  };
}

/** Visible ASCII only (the MCP spec's rule for session ids), within the length this server's ids have. */
function isWellFormedSessionId(sessionId: string): boolean {
  return sessionId.length > 0 && sessionId.length <= MCP_REQUEST_LIMITS.sessionIdChars && /^[\x21-\x7e]+$/.test(sessionId);
}

/**
 * Message-level checks of a 2025-era POST, after `readJsonRpcMessage` parsed
 * it: every message is JSON-RPC 2.0 with an id MCP allows, a batch is
 * neither empty nor too long, and `tools/call` and `initialize` carry the
 * params they need. A body of responses only is answered 202 here: Almanac
 * never sends requests to clients, so there is nothing waiting for them.
 * So is a body the SDK refuses as not JSON-RPC at all, before it knows an
 * era (these checks name the field at fault). Other 2026-07-28 requests are
 * left to the SDK's own validation ladder, whose answers the revision
 * prescribes (and which no Durable Object sits behind), but for the params
 * of resources/list and completion/complete, checked in both eras, since
 * both SDKs answer those with -32603 and a multi-line schema dump.
 */
export function checkJsonRpcMessages(): MiddlewareHandler<{ Bindings: Env }> {
  return async (c, next) => {
    const inspected = c.get("jsonRpcMessage");
    if (c.req.method !== "POST" || !inspected) return next();
    const legacyOrUnknown = inspected.era === "legacy" || (inspected.era === "refused" && inspected.refusedAt === "jsonrpc-shape");
    // The 2026-07-28 SDK answers its own envelopes; only the params its schemas would answer with -32603 are checked for it.
    const problem = legacyOrUnknown ? messageProblem(inspected.parsed) : inspected.era === "modern" ? modernParamsProblem(inspected.parsed) : null;
    if (problem) {
      // Answered for the offending message alone, not every id in the batch.
      const error = new AlmanacError("INVALID_ARGUMENT", problem.message);
      throw new RefusalError(error, { ids: problem.id === undefined ? [] : [problem.id], batch: false, jsonRpcCode: problem.code });
    }
    if (!legacyOrUnknown) return next();
    const messages = Array.isArray(inspected.parsed) ? inspected.parsed : [inspected.parsed];
    if (messages.every((message) => isResponse(message as Record<string, unknown>))) return c.body(null, 202);
    await next();
  };
}

interface MessageProblem {
  code: number;
  message: string;
  /** The id to answer with, when the offending message has a usable one. */
  id?: JsonRpcId;
}

/** What is wrong with a parsed POST body, or null. Exported for tests. */
function messageProblem(parsed: unknown): MessageProblem | null {
  if (Array.isArray(parsed)) {
    if (parsed.length === 0) return { code: INVALID_REQUEST, message: "the batch is empty; send at least one JSON-RPC message" };
    if (parsed.length > MCP_REQUEST_LIMITS.batchMessages) {
      return { code: INVALID_REQUEST, message: `the batch holds ${parsed.length} messages; send at most ${MCP_REQUEST_LIMITS.batchMessages} per request` };
    }
    for (const [index, message] of parsed.entries()) {
      const problem = singleMessageProblem(message, `messages[${index}]`);
      if (problem) return problem;
    }
    return null;
  }
  return singleMessageProblem(parsed, "the message");
}

/** What is wrong with the params of a 2026-07-28 message (one, never a batch), or null. */
function modernParamsProblem(parsed: unknown): MessageProblem | null {
  if (!isObject(parsed) || typeof parsed.method !== "string") return null;
  const id = typeof parsed.id === "string" || typeof parsed.id === "number" ? parsed.id : undefined;
  const problem = resourceParamsProblem(parsed.method, parsed.params);
  return problem && id !== undefined ? { code: INVALID_PARAMS, message: `the message: ${problem}`, id } : null;
}

function singleMessageProblem(message: unknown, where: string): MessageProblem | null {
  if (!isObject(message)) return { code: INVALID_REQUEST, message: `${where} is not a JSON object; send a JSON-RPC 2.0 request, notification or response` };
  if (message.jsonrpc !== "2.0") return { code: INVALID_REQUEST, message: `${where}: jsonrpc must be "2.0"` };
  const idProblem = "id" in message ? jsonRpcIdProblem(message.id) : null;
  if (idProblem) return { code: INVALID_REQUEST, message: `${where}: id ${idProblem}` };
  const id = "id" in message ? (message.id as JsonRpcId) : undefined;
  if (isResponse(message)) return id === undefined ? { code: INVALID_REQUEST, message: `${where}: a response needs the id of the request it answers` } : null;
  if (typeof message.method !== "string" || message.method === "") {
    return { code: INVALID_REQUEST, message: `${where}: method must be a non-empty string (or send a response with result or error)`, id };
  }
  if ("params" in message && !isObject(message.params)) return { code: INVALID_PARAMS, message: `${where}: params must be an object`, id };
  if (id === undefined) return null;
  if (message.method === "tools/call") {
    const params = message.params;
    if (!isObject(params) || typeof params.name !== "string") {
      return { code: INVALID_PARAMS, message: `${where}: tools/call needs params.name, the tool to call (see tools/list), and params.arguments, an object`, id };
    }
    if ("arguments" in params && params.arguments !== undefined && !isObject(params.arguments)) {
      return { code: INVALID_PARAMS, message: `${where}: params.arguments of tools/call must be an object of the tool's arguments, e.g. {"query": "…"}`, id };
    }
  }
  const resourceProblem = resourceParamsProblem(message.method, message.params);
  if (resourceProblem) return { code: INVALID_PARAMS, message: `${where}: ${resourceProblem}`, id };
  if (message.method === "initialize") {
    const params = message.params;
    if (!isObject(params) || typeof params.protocolVersion !== "string" || !isObject(params.capabilities) || !isObject(params.clientInfo)) {
      return {
        code: INVALID_PARAMS,
        message: `${where}: initialize needs params with protocolVersion (e.g. "2025-11-25"), capabilities (an object) and clientInfo ({"name", "version"})`,
        id,
      };
    }
  }
  return null;
}

/**
 * What is wrong with the params of resources/list or completion/complete, in
 * one sentence, or null. Checked here because each SDK would answer its own
 * schema's failure as -32603 with a multi-line validation dump.
 */
function resourceParamsProblem(method: string, params: unknown): string | null {
  const given = isObject(params) ? params : {};
  if (method === "resources/list") {
    if ("cursor" in given && given.cursor !== undefined && typeof given.cursor !== "string") {
      return "resources/list: params.cursor must be a string, the nextCursor of the page before (or left out for the first page)";
    }
  }
  if (method === "completion/complete") {
    const { ref, argument, context } = given;
    const refIsValid = isObject(ref) && ((ref.type === "ref/resource" && typeof ref.uri === "string") || (ref.type === "ref/prompt" && typeof ref.name === "string"));
    if (!refIsValid || !isObject(argument) || typeof argument.name !== "string" || typeof argument.value !== "string") {
      return 'completion/complete needs params.ref ({"type": "ref/resource", "uri": "documents/{+path}"}) and params.argument ({"name": "path", "value": "…"}, both strings)';
    }
    if (context !== undefined && (!isObject(context) || ("arguments" in context && context.arguments !== undefined && !isObject(context.arguments)))) {
      return "params.context.arguments of completion/complete must be an object of argument names to values";
    }
  }
  return null;
}

/** MCP ids are strings or integers, never null (JSON-RPC allows more; MCP does not). */
function jsonRpcIdProblem(id: unknown): string | null {
  if (typeof id === "string") return id.length <= MCP_REQUEST_LIMITS.idChars ? null : `is ${id.length} characters long; ids are at most ${MCP_REQUEST_LIMITS.idChars}`;
  if (typeof id === "number") return Number.isSafeInteger(id) ? null : "must be a string or an integer";
  return "must be a string or an integer";
}

function isResponse(message: Record<string, unknown>): boolean {
  return isObject(message) && !("method" in message) && ("result" in message || "error" in message);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
