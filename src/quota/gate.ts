// The answer_query quota, transport-free: charge a caller, describe the
// outcome in RateLimit-* headers, and explain a refusal. The edge's gate
// (src/http/answer-quota.ts) is the one middleware over these; /mcp, /v1
// and the landing page each adapt it in a few lines.
import { type Caller, callerIdentity } from "../auth/caller.ts";
import { AlmanacError } from "../errors.ts";
import { type AnswerLimits, type CallKind, type QuotaConfig, answerLimits, callLimit } from "./limits.ts";
import type { ChargeReceipt, QuotaDecision, WindowStatus } from "./windows.ts";

/** What the gate needs from Env: the limits and the counter namespace. */
type QuotaEnv = QuotaConfig & Pick<Env, "QUOTA_COUNTER">;

/**
 * Charges `calls` answer_query calls to a caller, all or none, in the
 * caller's QuotaCounter Durable Object.
 *
 * @example
 * const decision = await chargeAnswerQuery(c.env, c.get("caller"), 1);
 * if (!decision.admitted) throw quotaExceededError(decision, c.get("caller"));
 */
export async function chargeAnswerQuery(env: QuotaEnv, caller: Caller, calls: number): Promise<QuotaDecision> {
  const limits = answerLimits(env, caller);
  return counterFor(env, caller).charge(calls, limits);
}

/** A caller's answer_query allowance at one moment: its limits and what is left of each window. */
export interface AnswerAllowance {
  limits: AnswerLimits;
  /** The minute window, then the UTC day. */
  windows: WindowStatus[];
  now: number;
}

/**
 * What a caller may still spend, read from the same QuotaCounter that
 * charges it, without charging anything.
 *
 * @example const { windows } = await answerAllowance(c.env, c.get("caller")); // [{ window: "minute", limit: 3, remaining: 2, … }, …]
 */
export async function answerAllowance(env: QuotaEnv, caller: Caller): Promise<AnswerAllowance> {
  const limits = answerLimits(env, caller);
  const { windows, now } = await counterFor(env, caller).allowance(limits);
  return { limits, windows, now };
}

/** Gives back an admitted charge whose request the server refused before answering it. */
export async function refundAnswerQuery(env: QuotaEnv, caller: Caller, receipt: ChargeReceipt): Promise<void> {
  await counterFor(env, caller).refund(receipt);
}

/**
 * Charges `calls` searches or gets to a caller's current minute, all or
 * none, in the same QuotaCounter as its answer_query quota (exact).
 *
 * @example
 * const decision = await chargeCalls(c.env, c.get("caller"), "search", 1);
 * if (!decision.admitted) throw callLimitError(decision, c.get("caller"), "search");
 */
export async function chargeCalls(env: QuotaEnv, caller: Caller, kind: CallKind, calls: number): Promise<QuotaDecision> {
  return counterFor(env, caller).chargeCalls(kind, calls, callLimit(env, caller, kind));
}

/** What each kind of call is called in a refusal. */
const CALL_NOUNS: Record<CallKind, { one: string; many: string; tools: string }> = {
  search: { one: "search", many: "searches", tools: "search_documents, searchDocumentChunks and the search panel" },
  get: { one: "get", many: "gets", tools: "get_documents, documents.get, batchGet, resources/read, /llms.txt and the pages' Markdown" },
};

/**
 * The RESOURCE_EXHAUSTED error for a refused search or get, in the answer
 * quota's form (quotaExceededError): the limit hit, when it resets, what to
 * do; the same RateLimit-* and Retry-After headers and error `data`.
 */
export function callLimitError(decision: QuotaDecision, caller: Caller, kind: CallKind): AlmanacError {
  const { reported, calls } = decision;
  const noun = CALL_NOUNS[kind];
  const who = caller.kind === "key" ? `this API key ("${caller.label}")` : "your IP address (anonymous, public tier)";
  const raise = caller.kind === "anonymous" ? " An API key from the operator of this server raises the limit." : "";
  let problem: string;
  if (reported.limit === 0) {
    problem = `${noun.many} (${noun.tools}) are not available to ${who} on this server (limit 0 per minute).`;
  } else if (calls > reported.limit) {
    problem = `this request makes ${calls} ${noun.many}, more than the ${reported.limit} per minute that ${who} may make; send at most ${reported.limit} per request.`;
  } else {
    const left = reported.remaining === 0 ? "none left" : `${reported.remaining} left and this request needs ${calls}`;
    problem = `${noun.one} limit reached: ${who} may make ${reported.limit} ${noun.many} per minute (${noun.tools} count alike) and has ${left}; ${describeReset(reported, decision.now)}.`;
  }
  const { window, limit, remaining } = reported;
  return new AlmanacError("RESOURCE_EXHAUSTED", `${problem} Wait until then and repeat the request.${raise}`, undefined, {
    headers: rateLimitHeaders(decision),
    data: { window, limit, remaining, retryAfterSeconds: decision.retryAfterSeconds },
  });
}

function counterFor(env: QuotaEnv, caller: Caller) {
  return env.QUOTA_COUNTER.get(env.QUOTA_COUNTER.idFromName(callerIdentity(caller)));
}

/**
 * The RateLimit header fields (IETF httpapi draft, the form most clients
 * read) for the window closest to running out, the policy of both windows,
 * and on a refusal Retry-After (RFC 9110 §10.2.3).
 */
export function rateLimitHeaders(decision: QuotaDecision): Record<string, string> {
  const { reported } = decision;
  const headers: Record<string, string> = {
    "RateLimit-Limit": String(reported.limit),
    "RateLimit-Remaining": String(reported.remaining),
    "RateLimit-Reset": String(secondsUntil(reported.resetAt, decision.now)),
    "RateLimit-Policy": decision.windows.map((w) => `${w.limit};w=${w.window === "minute" ? 60 : 86_400}`).join(", "),
  };
  if (decision.retryAfterSeconds !== undefined) headers["Retry-After"] = String(decision.retryAfterSeconds);
  return headers;
}

/**
 * The RESOURCE_EXHAUSTED error for a refused decision. Its message is read by
 * models and people: it names the limit that was hit, when it resets, and
 * what to do instead. It carries the RateLimit-* and Retry-After headers, and
 * the window for a JSON-RPC error's `data`.
 */
export function quotaExceededError(decision: QuotaDecision, caller: Caller): AlmanacError {
  const { reported, calls } = decision;
  const per = reported.window === "minute" ? "per minute" : "per UTC day";
  const who = caller.kind === "key" ? `this API key ("${caller.label}")` : "your IP address (anonymous, public tier)";
  const instead = `Use search_documents instead (then get_documents for whole pages): it costs no quota.${
    caller.kind === "anonymous" ? " An API key from the operator of this server raises the limit." : ""
  }`;
  let problem: string;
  if (reported.limit === 0) {
    problem = `answer_query is not available to ${who} on this server (limit 0 calls ${per}).`;
  } else if (calls > reported.limit) {
    problem = `this request makes ${calls} answer_query calls, more than the ${reported.limit} ${per} that ${who} may make; send at most ${reported.limit} per request.`;
  } else {
    const left = reported.remaining === 0 ? "none left" : `${reported.remaining} left and this request needs ${calls}`;
    problem = `answer_query quota exhausted: ${who} may make ${plural(reported.limit, "call")} ${per} and has ${left}; ${describeReset(reported, decision.now)}.`;
  }
  const { window, limit, remaining } = reported;
  return new AlmanacError("RESOURCE_EXHAUSTED", `${problem} ${instead}`, undefined, {
    headers: rateLimitHeaders(decision),
    data: { window, limit, remaining, retryAfterSeconds: decision.retryAfterSeconds },
  });
}

/** 1 → "1 call", 5 → "5 calls". */
function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

function describeReset(window: WindowStatus, now: number): string {
  const at = new Date(window.resetAt).toISOString().replace(".000Z", "Z");
  return `the ${window.window === "minute" ? "per-minute" : "daily"} limit resets in ${formatDuration(secondsUntil(window.resetAt, now))} (at ${at})`;
}

/** 42 → "42 s", 60 → "60 s" (a minute window always reads in seconds), 3_780 → "1 h 3 min". */
export function formatDuration(seconds: number): string {
  if (seconds <= 60) return `${seconds} s`;
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

function secondsUntil(at: number, now: number): number {
  return Math.max(0, Math.ceil((at - now) / 1000));
}
