// The /mcp transport as its own sub-app: the browser rules, the request
// checks, the caller and the answer_query quota in front of both protocol
// eras, and one onError that answers every refusal as JSON-RPC.
import { Hono, type MiddlewareHandler } from "hono";
import { AlmanacError } from "../errors.ts";
import { answerQuota } from "../http/answer-quota.ts";
import { callLimits } from "../http/call-limits.ts";
import { authenticateCaller } from "../http/authenticate.ts";
import { errorHandlerAnswering } from "../http/error-handler.ts";
import { browserOriginGuard } from "../http/origin-guard.ts";
import { refusal, refusalOptions } from "../http/refusal.ts";
import { answerQueryTool } from "../tools/answer-query.ts";
import { toolIsEnabled } from "../tools/index.ts";
import { readJsonRpcMessage } from "./json-rpc-message.ts";
import { checkJsonRpcMessages, checkMcpRequest } from "./request-checks.ts";
import { mcpEndpoint } from "./serve.ts";

/**
 * The /mcp routes, to mount at the root (the 2025-era sessions' Durable
 * Objects are served at /mcp too, legacy-session.ts). Every refusal in front
 * of the MCP server is thrown and answered by `jsonRpcErrorHandler`; routes
 * elsewhere keep their own formats.
 *
 * @example app.route("/", mcpApi());
 */
export function mcpApi(): Hono<{ Bindings: Env }> {
  const mcp = new Hono<{ Bindings: Env }>();
  mcp.onError(jsonRpcErrorHandler);
  mcp.use("/mcp", mcpOriginGuard(), checkMcpRequest(), readJsonRpcMessage(), checkJsonRpcMessages());
  mcp.use("/mcp", authenticateCaller(), mcpCallLimits(), mcpAnswerQuota());
  mcp.all("/mcp", mcpEndpoint());
  return mcp;
}

/**
 * DNS-rebinding protection for the MCP endpoint, as the MCP transport spec
 * requires (the rules are every transport's, src/http/origin-guard.ts). Its
 * refusal has id null: the body of a refused request is never read.
 */
function mcpOriginGuard(): MiddlewareHandler<{ Bindings: Env }> {
  return browserOriginGuard((origin) => `Origin "${origin}" may not call this MCP server; its operator can allow it by adding it to ALLOWED_ORIGINS`);
}

/**
 * The per-minute search and get limits on /mcp: the search_documents and
 * get_documents calls (and resources/read) of the POSTed message or batch,
 * as `readJsonRpcMessage` counted them, in either protocol era.
 *
 * @example mcp.use("/mcp", readJsonRpcMessage(), authenticateCaller(), mcpCallLimits(), mcpAnswerQuota());
 */
function mcpCallLimits(): MiddlewareHandler<{ Bindings: Env }> {
  return callLimits((c) => {
    const message = c.get("jsonRpcMessage");
    if (!message) throw new AlmanacError("INTERNAL", "mcpCallLimits() runs before readJsonRpcMessage()");
    return message.readCalls ?? {};
  });
}

/**
 * The answer_query quota on /mcp: counts the `tools/call` requests for
 * answer_query in the POSTed JSON-RPC message or batch that
 * `readJsonRpcMessage` inspected, none when ENABLED_TOOLS leaves
 * answer_query out, and gives back the calls the route's response did not
 * answer (`mcpAnswered`: argument errors, a deadline).
 *
 * @example mcp.use("/mcp", readJsonRpcMessage(), authenticateCaller(), mcpAnswerQuota());
 */
export function mcpAnswerQuota(): MiddlewareHandler<{ Bindings: Env }> {
  return answerQuota({
    calls: (c) => {
      const message = c.get("jsonRpcMessage");
      if (!message) throw new AlmanacError("INTERNAL", "mcpAnswerQuota() runs before readJsonRpcMessage()");
      // A server without answer_query fails such a call as an unknown tool, with HTTP 200: no answer, so no charge.
      return toolIsEnabled(c.env, answerQueryTool.name) ? message.answerQueryCalls : 0;
    },
    unanswered: (c) => {
      const answered = c.get("mcpAnswered");
      const ids = c.get("jsonRpcMessage")?.answerQueryIds ?? [];
      return answered?.then((got) => ids.filter((id) => !got.has(id)).length);
    },
  });
}

/**
 * The /mcp onError: a JSON-RPC error for each request of the message that
 * `readJsonRpcMessage` read (an array for a batch), or one with id null for a
 * request refused before its body was read; a RefusalError's own ids, code
 * and HTTP status take precedence.
 *
 * @example mcp.onError(jsonRpcErrorHandler);
 */
export const jsonRpcErrorHandler = errorHandlerAnswering((error, c) => {
  const message = c.get("jsonRpcMessage");
  return refusal("json-rpc", error, { ids: message?.requestIds, batch: message?.batch, ...refusalOptions(error) });
});
