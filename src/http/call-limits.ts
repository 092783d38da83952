import type { Context, MiddlewareHandler } from "hono";
import { AlmanacError } from "../errors.ts";
import { callLimitError, chargeCalls, rateLimitHeaders } from "../quota/gate.ts";
import type { CallKind } from "../quota/limits.ts";
import type { QuotaDecision } from "../quota/windows.ts";

/**
 * The per-minute limits on searches and gets (like Google's 100 a minute per
 * project), the one middleware every door adapts: /mcp counts the calls in
 * its JSON-RPC message, REST methods and the search panel are one call each.
 * Runs after the caller is known. A request is charged for all its calls
 * before it goes further, or refused (RESOURCE_EXHAUSTED: 429 with
 * RateLimit-* and Retry-After, as the answer quota) and charged nothing.
 * Nothing is given back: a search that failed still read the index.
 *
 * @example rest.get("/v1/documents:searchDocumentChunks", callLimits(() => ({ search: 1 })), searchDocumentChunks);
 */
export function callLimits(calls: (c: Context<{ Bindings: Env }>) => Partial<Record<CallKind, number>>): MiddlewareHandler<{ Bindings: Env }> {
  return async (c, next) => {
    const counted = Object.entries(calls(c)).filter(([, count]) => (count ?? 0) > 0) as [CallKind, number][];
    if (counted.length === 0) return next();
    const caller = c.get("caller");
    if (!caller) throw new AlmanacError("INTERNAL", "callLimits() runs before the caller is identified");
    // Fail closed, as the answer quota: without a working counter nobody is admitted.
    const decisions: QuotaDecision[] = [];
    for (const [kind, count] of counted) {
      const decision = await chargeCalls(c.env, caller, kind, count);
      if (!decision.admitted) throw callLimitError(decision, caller, kind);
      decisions.push(decision);
    }
    await next();
    // The window closest to running out speaks for the response (an answer_query gate after this one sets its own).
    const closest = decisions.reduce((a, b) => (b.reported.remaining < a.reported.remaining ? b : a));
    if (!c.res.headers.has("RateLimit-Limit")) for (const [name, value] of Object.entries(rateLimitHeaders(closest))) c.header(name, value);
  };
}
