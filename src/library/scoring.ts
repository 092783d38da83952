import { isMutation, requiredParams, type EntryMetadata } from "./entry.ts";

/**
 * StackQL's query-library scoring, as its MCP server does it: per intent
 * token, a fixed weight for every field the token occurs in, plus one phrase
 * bonus. Plain substring tests on lower-cased text, so "bucket" finds
 * "buckets" and a score can be explained by hand.
 */

/** Points a token earns for occurring in each field; intent_keywords are written as users ask, so they weigh most. */
export const FIELD_WEIGHTS = {
  intent_keywords: 4,
  title: 3,
  keywords: 2.5,
  tags: 2,
  services: 2,
  providers: 1.5,
  description: 1,
} as const;

/**
 * Added once when the whole intent contains an intent keyword, or an intent
 * keyword contains the intent; only for intents with at least one scoring token.
 */
export const PHRASE_BONUS = 6;

/** StackQL's miss threshold: one intent word in a title (3) is a hit; a word only in the description (1) or a provider name (1.5) is not. */
export const MISS_THRESHOLD = 2.5;

/** Words that say nothing about what to query. */
const STOPWORDS = new Set([
  "a", "about", "all", "an", "and", "any", "are", "as", "at", "be", "by", "can", "do", "does", "each", "every",
  "for", "from", "give", "how", "i", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "our",
  "please", "should", "so", "some", "that", "the", "their", "them", "these", "this", "those", "to",
  "using", "via", "want", "was", "we", "what", "when", "where", "which", "who", "why", "will", "with",
  "would", "you", "your",
]);

/** `read_only` hides mutation entries from search even when the caller asks for them (SPEC 3.3). */
const SERVER_MODES = ["read_only", "safe", "delete_safe", "full_access"] as const;
type ServerMode = (typeof SERVER_MODES)[number];

/** SERVER_MODE as configured; anything unrecognised is the default, `safe`. */
export function serverMode(value: string | undefined): ServerMode {
  return SERVER_MODES.find((mode) => mode === value) ?? "safe";
}

/** The intent's scoring tokens: lower-cased, split on non-[a-z0-9], without 1-character words, stopwords and repeats. */
export function intentTokens(intent: string): string[] {
  const tokens = intent
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((token) => token.length > 1 && !STOPWORDS.has(token));
  return [...new Set(tokens)];
}

/** An intent as scoring reads it, parsed once per search. */
interface ParsedIntent {
  /** The scoring tokens (see intentTokens). */
  tokens: readonly string[];
  /** The whole intent, lower-cased, trimmed, runs of whitespace made one space: what the phrase bonus compares. */
  phrase: string;
}

/** Parses an intent for scoring; rankEntries does it once for all entries. */
function parseIntent(intent: string): ParsedIntent {
  return { tokens: intentTokens(intent), phrase: intent.toLowerCase().trim().replace(/\s+/g, " ") };
}

/** How well one entry fits an intent (0 when it does not fit at all); pass a ParsedIntent when scoring many entries. */
export function scoreEntry(entry: EntryMetadata, intent: string | ParsedIntent): number {
  const { tokens, phrase } = typeof intent === "string" ? parseIntent(intent) : intent;
  // An intent of only stopwords and 1-character words asks nothing; without this, "a" or "to"
  // would earn the phrase bonus from every intent keyword that merely contains it.
  if (tokens.length === 0) return 0;
  const intentKeywords = entry.intent_keywords.map((keyword) => keyword.toLowerCase());
  // "\n" never occurs in a token, so a token cannot match across two list items.
  const fields: Record<keyof typeof FIELD_WEIGHTS, string> = {
    intent_keywords: intentKeywords.join("\n"),
    title: entry.title.toLowerCase(),
    keywords: entry.keywords.join("\n").toLowerCase(),
    tags: entry.tags.join("\n").toLowerCase(),
    services: entry.services.join("\n").toLowerCase(),
    providers: entry.providers.join("\n").toLowerCase(),
    description: entry.description.toLowerCase(),
  };
  let score = 0;
  for (const token of tokens) {
    for (const [field, weight] of Object.entries(FIELD_WEIGHTS) as [keyof typeof FIELD_WEIGHTS, number][]) {
      if (fields[field].includes(token)) score += weight;
    }
  }
  if (phrase && intentKeywords.some((keyword) => phrase.includes(keyword) || keyword.includes(phrase))) {
    score += PHRASE_BONUS;
  }
  return score;
}

/** What query_library_search asks of the library. */
export interface LibraryQuery {
  intent: string;
  provider?: string;
  service?: string;
  tags?: readonly string[];
  include_mutations?: boolean;
  limit: number;
}

/** One search hit, as query_library_search returns it. */
export interface LibraryHit {
  id: string;
  title: string;
  description: string;
  providers: string[];
  services: string[];
  mutation: boolean;
  required_params: string[];
  score: number;
}

/**
 * Whether mutation and lifecycle entries may appear: only when the caller asks
 * and the server is not read_only. The one place this rule is written; search
 * also hands the flag to the D1 query, so hidden rows are never read.
 */
export function mutationsVisible(query: Pick<LibraryQuery, "include_mutations">, mode: ServerMode): boolean {
  return query.include_mutations === true && mode !== "read_only";
}

/** Whether an entry may appear in search at all, before scoring. */
function visible(entry: EntryMetadata, query: LibraryQuery, showMutations: boolean): boolean {
  if (entry.status === "deprecated") return false;
  if (isMutation(entry) && !showMutations) return false;
  if (query.provider !== undefined) {
    const provider = query.provider.toLowerCase();
    const family = entry.id.split("/")[0];
    if (family !== provider && !entry.providers.includes(provider)) return false;
  }
  if (query.service !== undefined && !entry.services.includes(query.service.toLowerCase())) return false;
  return (query.tags ?? []).every((tag) => entry.tags.includes(tag.toLowerCase()));
}

/**
 * Ranks entries for an intent: filters first (provider — its family or any of
 * its providers —, service, every tag; deprecated and, unless allowed,
 * mutation entries never appear), then entries that score, best first; ties
 * keep the library's order (Array.prototype.sort is stable).
 */
export function rankEntries(entries: readonly EntryMetadata[], query: LibraryQuery, mode: ServerMode): { hits: LibraryHit[]; miss: boolean } {
  const showMutations = mutationsVisible(query, mode);
  const intent = parseIntent(query.intent);
  const hits = entries
    .filter((entry) => visible(entry, query, showMutations))
    .map((entry) => ({ entry, score: scoreEntry(entry, intent) }))
    .filter(({ score }) => score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, query.limit)
    .map(({ entry, score }) => ({
      id: entry.id,
      title: entry.title,
      description: entry.description,
      providers: entry.providers,
      services: entry.services,
      mutation: isMutation(entry),
      required_params: requiredParams(entry),
      score,
    }));
  const top = hits[0]?.score ?? 0;
  return { hits, miss: top < MISS_THRESHOLD };
}
