import { classifyInboundRequest } from "@modelcontextprotocol/server";
import type { JsonRpcId } from "../http/refusal.ts";
import { answerQueryTool } from "../tools/answer-query.ts";
import type { CallKind } from "../quota/limits.ts";

/** The calls of a message that count against a kind's per-minute limit. */
function callKind(message: Record<string, unknown>): CallKind | null {
  if (message.method === "resources/read") return "get";
  if (message.method !== "tools/call" || !isObject(message.params)) return null;
  if (message.params.name === "search_documents") return "search";
  if (message.params.name === "get_documents") return "get";
  return null;
}

/** What the quota gate and refusals need to know about a POST body on /mcp. */
export interface InspectedBody {
  /** How many `tools/call` requests in it call answer_query. */
  answerQueryCalls: number;
  /** The ids of those calls, in order (empty when the SDK refuses the request before any tool runs). */
  answerQueryIds: JsonRpcId[];
  /** The ids of every request in it, in order: a refusal answers each of them. */
  requestIds: JsonRpcId[];
  batch: boolean;
  /** How many searches (search_documents calls) and gets (get_documents calls, resources/read) it makes, for the per-minute limits; absent: none. */
  readCalls?: Record<CallKind, number>;
  /** The body as parsed JSON; absent when it is not JSON. */
  parsed?: unknown;
  /**
   * The SDK classifier's verdict on the body: 2025-era traffic, a 2026-07-28
   * request, or one the 2026-07-28 validation refuses; absent when it is not JSON.
   */
  era?: "legacy" | "modern" | "refused";
  /** For a refused body, the first rung of the SDK's validation ladder it failed ("jsonrpc-shape" comes before any era is known). */
  refusedAt?: string;
}

/** The MCP headers of a POST that the 2026-07-28 revision checks against its body. */
interface McpHeaders {
  protocolVersion?: string;
  method?: string;
  name?: string;
}

/**
 * Finds the answer_query calls in a JSON-RPC message or batch. Counts what
 * the MCP server would execute: a request (it has an id; the SDK ignores a
 * `tools/call` notification) whose method is exactly `tools/call` and whose
 * `params.name` is exactly `answer_query`. A body that is not JSON has no
 * calls; the MCP transport answers it with a parse error. Nor has a request
 * that the SDK's 2026-07-28 validation refuses before any tool runs (a
 * malformed envelope, an unsupported version, `Mcp-Method` or `Mcp-Name`
 * headers that disagree with the body): nothing is charged for it.
 *
 * @example inspectJsonRpcBody('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"answer_query"}}') // { answerQueryCalls: 1, requestIds: [1], batch: false }
 */
export function inspectJsonRpcBody(body: string, headers: McpHeaders = {}): InspectedBody {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { answerQueryCalls: 0, answerQueryIds: [], requestIds: [], batch: false };
  }
  const batch = Array.isArray(parsed);
  const messages: unknown[] = Array.isArray(parsed) ? parsed : [parsed];
  const answerQueryIds: JsonRpcId[] = [];
  const requestIds: JsonRpcId[] = [];
  const readCalls: Record<CallKind, number> = { search: 0, get: 0 };
  for (const message of messages) {
    if (!isObject(message) || typeof message.method !== "string") continue;
    const id = message.id;
    if (typeof id !== "string" && typeof id !== "number") continue;
    requestIds.push(id);
    if (message.method === "tools/call" && isObject(message.params) && message.params.name === answerQueryTool.name) answerQueryIds.push(id);
    const kind = callKind(message);
    if (kind) readCalls[kind] += 1;
  }
  const outcome = classifyInboundRequest({
    httpMethod: "POST",
    protocolVersionHeader: headers.protocolVersion,
    mcpMethodHeader: headers.method,
    mcpNameHeader: headers.name,
    body: parsed,
  });
  if (outcome.kind === "reject") {
    answerQueryIds.length = 0;
    readCalls.search = readCalls.get = 0;
  }
  const inspected = { answerQueryCalls: answerQueryIds.length, answerQueryIds, requestIds, batch, readCalls, parsed };
  return outcome.kind === "reject" ? { ...inspected, era: "refused", refusedAt: outcome.rung } : { ...inspected, era: outcome.kind };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
