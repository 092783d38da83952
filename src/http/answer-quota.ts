import type { Context, MiddlewareHandler } from "hono";
import { AlmanacError } from "../errors.ts";
import { chargeAnswerQuery, quotaExceededError, rateLimitHeaders, refundAnswerQuery } from "../quota/gate.ts";

/** How a transport tells the gate what a request costs. */
interface AnswerQuotaOptions {
  /** How many answer_query calls the request makes (0: it passes untouched and uncounted). */
  calls(c: Context<{ Bindings: Env }>): number;
  /**
   * For a response that succeeded at the HTTP level, how many of the charged
   * calls got no answer after all (an `isError` result, an error, a deadline),
   * once the response has gone out; undefined when every call is an answer.
   */
  unanswered?(c: Context<{ Bindings: Env }>): Promise<number> | undefined;
}

/**
 * The answer_query quota gate, the one every transport adapts (/mcp counts
 * the calls in its JSON-RPC message, /v1:answerQuery and the ask panel are
 * one call each); runs after the caller is known. A request that makes
 * answer_query calls is charged for all of them before it goes further, or
 * refused (RESOURCE_EXHAUSTED, which the transport's onError answers with
 * 429) and charged nothing. Admitted responses carry RateLimit-* headers; a
 * charge the downstream handler answers with an error status is given back,
 * as no answer was produced: a 4xx (unknown session, malformed request) or a
 * 5xx (a failing session or store). So are the calls of a successful
 * response that `unanswered` finds got no answer.
 *
 * @example rest.post("/v1:answerQuery", readAnswerQueryRequest(), answerQuota({ calls: () => 1 }), answerQuery);
 */
export function answerQuota(options: AnswerQuotaOptions): MiddlewareHandler<{ Bindings: Env }> {
  const { calls, unanswered } = options;
  return async (c, next) => {
    const answerQueryCalls = calls(c);
    if (answerQueryCalls === 0) return next();
    const caller = c.get("caller");
    if (!caller) throw new AlmanacError("INTERNAL", "answerQuota() runs before the caller is identified");
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
