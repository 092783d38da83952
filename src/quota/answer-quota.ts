import type { MiddlewareHandler } from "hono";
import { type RefusalFormat, refusal } from "../auth/refusal.ts";
import { AlmanacError, toAlmanacError } from "../errors.ts";
import { chargeAnswerQuery, quotaExceededError, rateLimitHeaders, refundAnswerQuery } from "./gate.ts";
import { type InspectedBody, inspectJsonRpcBody } from "./json-rpc.ts";

interface AnswerQuotaOptions {
  format: RefusalFormat;
  /** How many answer_query calls a request makes, and the JSON-RPC ids a refusal answers. */
  inspect(request: Request): Promise<InspectedBody>;
}

/**
 * The answer_query quota gate as middleware; runs after `authenticateCaller`.
 * A request that makes answer_query calls is charged for all of them before
 * it goes further, or refused with 429 and charged nothing. Admitted
 * responses carry RateLimit-* headers; a charge the downstream handler
 * refuses with a 4xx (unknown session, malformed request) is given back, as
 * no answer was produced. Any other request passes untouched and uncounted.
 */
export function answerQuota(options: AnswerQuotaOptions): MiddlewareHandler<{ Bindings: Env }> {
  const { format, inspect } = options;
  return async (c, next) => {
    const { answerQueryCalls, requestIds, batch } = await inspect(c.req.raw);
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
    if (c.res.status >= 400 && c.res.status < 500 && decision.receipt) {
      await refundAnswerQuery(c.env, caller, decision.receipt);
      return;
    }
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
  };
}

/**
 * The gate for /mcp: counts the `tools/call` requests for answer_query in a
 * POSTed JSON-RPC message or batch; refusals are JSON-RPC errors with the
 * refused requests' ids.
 *
 * @example app.use("/mcp", originGuard(), authenticateCaller({ format: "json-rpc" }), mcpAnswerQuota());
 */
export function mcpAnswerQuota(): MiddlewareHandler<{ Bindings: Env }> {
  return answerQuota({
    format: "json-rpc",
    // The body is read from a clone: the MCP transport reads the original.
    inspect: async (request) =>
      request.method === "POST" ? inspectJsonRpcBody(await request.clone().text()) : { answerQueryCalls: 0, requestIds: [], batch: false },
  });
}

/**
 * The gate for `POST /v1:answerQuery`: every request is one answer; refusals
 * are Google error bodies (`RESOURCE_EXHAUSTED`, 429).
 *
 * @example app.post("/v1:answerQuery", authenticateCaller({ format: "google" }), restAnswerQuota(), answerQueryHandler);
 */
export function restAnswerQuota(): MiddlewareHandler<{ Bindings: Env }> {
  return answerQuota({ format: "google", inspect: async () => ({ answerQueryCalls: 1, requestIds: [], batch: false }) });
}
