import type { Context, MiddlewareHandler } from "hono";
import { AlmanacError, toAlmanacError } from "../errors.ts";
import { type RefusalFormat, refusal } from "../http/refusal.ts";
import { enabledTools } from "../tools/index.ts";
import { chargeAnswerQuery, quotaExceededError, rateLimitHeaders, refundAnswerQuery } from "./gate.ts";
import { ANSWER_QUERY_TOOL, type InspectedBody } from "./json-rpc.ts";

interface AnswerQuotaOptions {
  format: RefusalFormat;
  /** How many answer_query calls a request makes, and the JSON-RPC ids a refusal answers. */
  inspect(c: Context<{ Bindings: Env }>): InspectedBody;
}

/**
 * The answer_query quota gate as middleware; runs after `authenticateCaller`.
 * A request that makes answer_query calls is charged for all of them before
 * it goes further, or refused with 429 and charged nothing. Admitted
 * responses carry RateLimit-* headers; a charge the downstream handler
 * answers with an error status is given back, as no answer was produced:
 * a 4xx (unknown session, malformed request) or a 5xx (a failing session or
 * store). Any other request passes untouched and uncounted.
 */
export function answerQuota(options: AnswerQuotaOptions): MiddlewareHandler<{ Bindings: Env }> {
  const { format, inspect } = options;
  return async (c, next) => {
    const { answerQueryCalls, requestIds, batch } = inspect(c);
    if (answerQueryCalls === 0) return next();
    const caller = c.get("caller");
    let decision;
    try {
      if (!caller) throw new AlmanacError("INTERNAL", "answerQuota() runs before authenticateCaller()");
      decision = await chargeAnswerQuery(c.env, caller, answerQueryCalls);
    } catch (thrown) {
      // Fail closed: without a working counter nobody is admitted, so nobody exceeds a limit.
      const error = toAlmanacError(thrown);
      console.error("answer_query quota check failed", error.detail ?? error.message);
      return refusal(format, error, { ids: requestIds, batch });
    }
    const headers = rateLimitHeaders(decision);
    if (!decision.admitted) {
      const { window, limit, remaining } = decision.reported;
      return refusal(format, quotaExceededError(decision, caller), {
        headers,
        ids: requestIds,
        batch,
        data: { window, limit, remaining, retryAfterSeconds: decision.retryAfterSeconds },
      });
    }
    await next();
    if (c.res.status >= 400 && decision.receipt) {
      await refundAnswerQuery(c.env, caller, decision.receipt);
      return;
    }
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
  };
}

/**
 * The gate for /mcp: counts the `tools/call` requests for answer_query in the
 * POSTed JSON-RPC message or batch that `readJsonRpcMessage` inspected, none
 * when ENABLED_TOOLS leaves answer_query out; refusals are JSON-RPC errors
 * with the refused requests' ids.
 *
 * @example app.use("/mcp", originGuard(), readJsonRpcMessage(), authenticateCaller({ format: "json-rpc" }), mcpAnswerQuota());
 */
export function mcpAnswerQuota(): MiddlewareHandler<{ Bindings: Env }> {
  return answerQuota({
    format: "json-rpc",
    inspect: (c) => {
      const message = c.get("jsonRpcMessage");
      if (!message) throw new AlmanacError("INTERNAL", "mcpAnswerQuota() runs before readJsonRpcMessage()");
      // A server without answer_query fails such a call as an unknown tool, with HTTP 200: no answer, so no charge.
      return answerQueryIsEnabled(c.env) ? message : { ...message, answerQueryCalls: 0 };
    },
  });
}

function answerQueryIsEnabled(env: Pick<Env, "ENABLED_TOOLS">): boolean {
  return enabledTools(env.ENABLED_TOOLS).some((tool) => tool.name === ANSWER_QUERY_TOOL);
}

/**
 * The gate for `POST /v1:answerQuery`: every request is one answer; refusals
 * are Google error bodies (`RESOURCE_EXHAUSTED`, 429).
 *
 * @example app.post("/v1:answerQuery", authenticateCaller({ format: "google" }), restAnswerQuota(), answerQueryHandler);
 */
export function restAnswerQuota(): MiddlewareHandler<{ Bindings: Env }> {
  return answerQuota({ format: "google", inspect: () => ({ answerQueryCalls: 1, requestIds: [], batch: false }) });
}
