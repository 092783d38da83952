import type { Context, MiddlewareHandler } from "hono";
import { AlmanacError } from "../errors.ts";
import type { InspectedBody } from "../mcp/json-rpc.ts";
import { answerQueryTool } from "../tools/answer-query.ts";
import { enabledTools } from "../tools/index.ts";
import { chargeAnswerQuery, quotaExceededError, rateLimitHeaders, refundAnswerQuery } from "./gate.ts";

interface AnswerQuotaOptions {
  /** How many answer_query calls a request makes. */
  inspect(c: Context<{ Bindings: Env }>): Pick<InspectedBody, "answerQueryCalls">;
  /**
   * For a response that succeeded at the HTTP level, how many of the charged
   * calls got no answer after all (an `isError` result, an error, a deadline),
   * once the response has gone out; undefined when every call is an answer.
   */
  unanswered?(c: Context<{ Bindings: Env }>): Promise<number> | undefined;
}

/**
 * The answer_query quota gate as middleware; runs after `authenticateCaller`.
 * A request that makes answer_query calls is charged for all of them before
 * it goes further, or refused (RESOURCE_EXHAUSTED, which `errorHandler`
 * answers with 429) and charged nothing. Admitted responses carry
 * RateLimit-* headers; a charge the downstream handler answers with an error
 * status is given back, as no answer was produced: a 4xx (unknown session,
 * malformed request) or a 5xx (a failing session or store). So are the calls
 * of a successful response that `unanswered` finds got no answer. Any other
 * request passes untouched and uncounted.
 */
export function answerQuota(options: AnswerQuotaOptions): MiddlewareHandler<{ Bindings: Env }> {
  const { inspect, unanswered } = options;
  return async (c, next) => {
    const { answerQueryCalls } = inspect(c);
    if (answerQueryCalls === 0) return next();
    const caller = c.get("caller");
    if (!caller) throw new AlmanacError("INTERNAL", "answerQuota() runs before authenticateCaller()");
    // Fail closed: a failing counter throws, and without a working counter nobody is admitted, so nobody exceeds a limit.
    const decision = await chargeAnswerQuery(c.env, caller, answerQueryCalls);
    if (!decision.admitted) throw quotaExceededError(decision, caller);
    await next();
    if (c.res.status >= 400 && decision.receipt) {
      await refundAnswerQuery(c.env, caller, decision.receipt);
      return;
    }
    for (const [name, value] of Object.entries(rateLimitHeaders(decision))) c.header(name, value);
    const counting = unanswered?.(c);
    const { receipt } = decision;
    if (counting && receipt) {
      // After the response: a refund must not delay it, nor be lost if the client leaves.
      c.executionCtx.waitUntil(
        counting.then((calls) => (calls > 0 ? refundAnswerQuery(c.env, caller, { ...receipt, calls: Math.min(calls, receipt.calls) }) : undefined)),
      );
    }
  };
}

/**
 * The gate for /mcp: counts the `tools/call` requests for answer_query in the
 * POSTed JSON-RPC message or batch that `readJsonRpcMessage` inspected, none
 * when ENABLED_TOOLS leaves answer_query out, and gives back the calls the
 * route's response did not answer (`mcpAnswered`: argument errors, a
 * deadline). `errorHandler` answers a refusal with JSON-RPC errors for the
 * refused requests' ids.
 *
 * @example app.use("/mcp", originGuard(), readJsonRpcMessage(), authenticateCaller(), mcpAnswerQuota());
 */
export function mcpAnswerQuota(): MiddlewareHandler<{ Bindings: Env }> {
  return answerQuota({
    inspect: (c) => {
      const message = c.get("jsonRpcMessage");
      if (!message) throw new AlmanacError("INTERNAL", "mcpAnswerQuota() runs before readJsonRpcMessage()");
      // A server without answer_query fails such a call as an unknown tool, with HTTP 200: no answer, so no charge.
      return answerQueryIsEnabled(c.env) ? message : { answerQueryCalls: 0 };
    },
    unanswered: (c) => {
      const answered = c.get("mcpAnswered");
      const ids = c.get("jsonRpcMessage")?.answerQueryIds ?? [];
      return answered?.then((got) => ids.filter((id) => !got.has(id)).length);
    },
  });
}

function answerQueryIsEnabled(env: Pick<Env, "ENABLED_TOOLS">): boolean {
  return enabledTools(env.ENABLED_TOOLS).some((tool) => tool.name === answerQueryTool.name);
}

/**
 * The gate for the REST facade's POST /v1:answerQuery: every request is one
 * answer, charged to the same counter as MCP answer_query; `errorHandler`
 * answers a refusal with Google's error body (`RESOURCE_EXHAUSTED`, 429).
 *
 * @example rest.post("/v1:answerQuery", authenticateCaller(), readAnswerQueryRequest(), restAnswerQuota(), answerQuery);
 */
export function restAnswerQuota(): MiddlewareHandler<{ Bindings: Env }> {
  return answerQuota({ inspect: () => ({ answerQueryCalls: 1 }) });
}
