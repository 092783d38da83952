import type { Caller } from "../auth/caller.ts";
import { type KeyTier, isKeyTier } from "../auth/api-keys.ts";
import { AlmanacError } from "../errors.ts";

/** How many `answer_query` calls a caller may make per minute and per UTC day. */
export interface AnswerLimits {
  perMinute: number;
  perDay: number;
}

type QuotaVariable =
  | "QUOTA_ANSWER_PER_MINUTE"
  | "QUOTA_ANSWER_PER_DAY"
  | "QUOTA_PUBLIC_ANSWER_PER_MINUTE"
  | "QUOTA_PUBLIC_ANSWER_PER_DAY"
  | "QUOTA_SEARCH_PER_MINUTE"
  | "QUOTA_PUBLIC_SEARCH_PER_MINUTE"
  | "QUOTA_GET_PER_MINUTE"
  | "QUOTA_PUBLIC_GET_PER_MINUTE";

/** The [vars] the limits come from (a subset of Env, so tests can pass their own). */
export type QuotaConfig = Partial<Record<QuotaVariable, string>>;

/**
 * Defaults when a variable is absent, as Google sets Developer Knowledge's
 * answerQuery quota for a key (10/min, 50/day); anonymous callers get less.
 * wrangler.toml states the same numbers; these only cover a missing entry.
 */
const DEFAULTS: Record<QuotaVariable, number> = {
  QUOTA_ANSWER_PER_MINUTE: 10,
  QUOTA_ANSWER_PER_DAY: 50,
  QUOTA_PUBLIC_ANSWER_PER_MINUTE: 3,
  QUOTA_PUBLIC_ANSWER_PER_DAY: 20,
  // Google limits search and get to 100 a minute each per project; an anonymous address gets less.
  QUOTA_SEARCH_PER_MINUTE: 100,
  QUOTA_PUBLIC_SEARCH_PER_MINUTE: 30,
  QUOTA_GET_PER_MINUTE: 100,
  QUOTA_PUBLIC_GET_PER_MINUTE: 30,
};

/** The variables that set each tier's limits. */
const TIER_VARIABLES: Record<KeyTier, { perMinute: QuotaVariable; perDay: QuotaVariable }> = {
  standard: { perMinute: "QUOTA_ANSWER_PER_MINUTE", perDay: "QUOTA_ANSWER_PER_DAY" },
  public: { perMinute: "QUOTA_PUBLIC_ANSWER_PER_MINUTE", perDay: "QUOTA_PUBLIC_ANSWER_PER_DAY" },
};

/**
 * The limits that apply to a caller: anonymous callers get the public tier's;
 * a key gets its own limits where it has them, its tier's otherwise.
 *
 * @example answerLimits(env, { kind: "anonymous", address: "203.0.113.7" }) // { perMinute: 3, perDay: 20 }
 */
export function answerLimits(env: QuotaConfig, caller: Caller): AnswerLimits {
  if (caller.kind === "anonymous") return tierLimits(env, "public");
  if (!isKeyTier(caller.tier)) throw new AlmanacError("INTERNAL", `API key ${caller.keyId} has unknown tier "${caller.tier}"`);
  const tier = tierLimits(env, caller.tier);
  return { perMinute: caller.answerPerMinute ?? tier.perMinute, perDay: caller.answerPerDay ?? tier.perDay };
}

/** A tier's limits as configured. */
export function tierLimits(env: QuotaConfig, tier: KeyTier): AnswerLimits {
  const variables = TIER_VARIABLES[tier];
  return { perMinute: configuredLimit(env, variables.perMinute), perDay: configuredLimit(env, variables.perDay) };
}

/** The calls counted per minute beside answer_query: searches (search_documents, searchDocumentChunks, the search panel) and gets (get_documents, resources/read, documents.get, batchGet, /llms.txt, a page's Markdown). */
export type CallKind = "search" | "get";

const CALL_VARIABLES: Record<CallKind, Record<KeyTier, QuotaVariable>> = {
  search: { standard: "QUOTA_SEARCH_PER_MINUTE", public: "QUOTA_PUBLIC_SEARCH_PER_MINUTE" },
  get: { standard: "QUOTA_GET_PER_MINUTE", public: "QUOTA_PUBLIC_GET_PER_MINUTE" },
};

/**
 * How many calls of a kind a caller may make per minute: anonymous callers
 * the public tier's, a key its own limit where it has one, its tier's otherwise.
 *
 * @example callLimit(env, { kind: "anonymous", address: "203.0.113.7" }, "search") // 30
 */
export function callLimit(env: QuotaConfig, caller: Caller, kind: CallKind): number {
  if (caller.kind === "anonymous") return tierCallLimit(env, "public", kind);
  if (!isKeyTier(caller.tier)) throw new AlmanacError("INTERNAL", `API key ${caller.keyId} has unknown tier "${caller.tier}"`);
  const own = kind === "search" ? caller.searchPerMinute : caller.getPerMinute;
  return own ?? tierCallLimit(env, caller.tier, kind);
}

/** A tier's per-minute limit for a kind of call, as configured. */
export function tierCallLimit(env: QuotaConfig, tier: KeyTier, kind: CallKind): number {
  return configuredLimit(env, CALL_VARIABLES[kind][tier]);
}

function configuredLimit(env: QuotaConfig, name: QuotaVariable): number {
  const value = env[name];
  if (value === undefined || value.trim() === "") return DEFAULTS[name];
  const limit = parseWholeNumber(value);
  // A typo must not silently lift or lower a limit: refuse until it is fixed.
  if (limit === null) throw new AlmanacError("INTERNAL", `${name} is "${value}"; it must be a whole number ≥ 0`);
  return limit;
}

/** "10" → 10; anything but a plain whole number ≥ 0 ("1e3", "-1", "ten", "2.5") → null. */
export function parseWholeNumber(text: string): number | null {
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed)) return null;
  const value = Number(trimmed);
  return Number.isSafeInteger(value) ? value : null;
}
