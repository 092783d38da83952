/**
 * The last step of retrieval (retrieve.ts), taken once per request whether
 * or not vectors were fused: the ranked list is spread over pages, and each
 * chunk gets its relevance score.
 */
import type { RankedCandidate } from "./rank.ts";

/** A chunk in the order search shows it, with its relevance. */
export interface RetrievedChunk extends RankedCandidate {
  /** In [0, 1], never higher than a chunk's above it (relevanceOf). */
  relevance: number;
}

/** A ranked chunk and the score its list orders it by: the ranking's own, or reciprocal rank fusion's after fusion. */
export interface Ordered {
  candidate: RankedCandidate;
  score: number;
}

/**
 * Spreads the first places over several pages: each page's later chunks are
 * discounted (score × samePage^k, k the chunks of the page before it), then
 * the list is sorted again, stably. Each chunk's `score` stays the ranking's
 * (rank.ts), so what answers weigh sentences by does not depend on whether
 * vectors were fused; its relevance is read off the spread order.
 */
export function finalOrder(list: readonly Ordered[], samePage: number): RetrievedChunk[] {
  const seen = new Map<string, number>();
  const spread = list.map(({ candidate, score }, index) => {
    const earlier = seen.get(candidate.parent) ?? 0;
    seen.set(candidate.parent, earlier + 1);
    return { candidate, index, score: score * samePage ** earlier };
  });
  spread.sort((a, b) => b.score - a.score || a.index - b.index);
  const top = spread[0]?.score ?? 0;
  const ceiling = Math.max(0, ...list.map(({ candidate }) => candidate.coverage));
  return spread.map(({ candidate, score }) => ({ ...candidate, relevance: relevanceOf(ceiling, top > 0 ? score / top : 1) }));
}

/**
 * A result's relevance score (Google's DocumentChunk.relevanceScore), in
 * [0, 1]: the ceiling (how much of the question, by the rarity weight of its
 * words, the best-covering chunk of the ranking contains) times the result's
 * spread score as a share of the first result's. So within a response it
 * never rises down the list; across questions its first value says how much
 * of the question the corpus holds at all, whatever the BM25 scale of the
 * words: a question whose rare words no page has starts low, one every word
 * of which one section has starts at 1. Rounded to 4 places (rounding keeps
 * the order).
 *
 * @example relevanceOf(0.8, 0.5) // 0.4
 */
function relevanceOf(ceiling: number, share: number): number {
  return Math.round(Math.min(1, Math.max(0, ceiling * share)) * 10_000) / 10_000;
}
