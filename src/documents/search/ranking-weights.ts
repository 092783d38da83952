/**
 * The weights of the ranking, named so the evaluation can say what each one
 * bought. Search takes them as a parameter (the product always passes
 * DEFAULT_RANKING; `npm run eval:tune` passes variants), so nothing reads
 * them from module state. Every number was chosen with `npm run eval`
 * (EVALUATION.md), not guessed.
 */
export interface RankingWeights {
  /** BM25 weights of the indexed columns: title, heading path, content. */
  readonly columnWeights: readonly [title: number, heading: number, content: number];
  /** Exponent on IDF-weighted coverage of the query's words. */
  readonly coverage: number;
  /** Share of a chunk's score that comes from its page's best chunks. */
  readonly page: number;
  /** Weight of a page's second-best chunk in the page score. */
  readonly pageSecond: number;
  /** Multiplier for chunks of the site the query names. */
  readonly namedSite: number;
  /** Discount of each further chunk of a page already ranked. */
  readonly samePage: number;
  /** BM25 weight of the terms a site's back-of-book index attached to a chunk (migration 0015). */
  readonly indexTerms: number;
  /** Multiplier for release-note chunks when the question asks nothing about versions (rank.ts). */
  readonly releaseNotes: number;
}

/** The weights the product ranks with (frozen: a variant is a new object, never an edit). */
export const DEFAULT_RANKING: RankingWeights = Object.freeze({
  /**
   * BM25 weights of the indexed columns (title, heading path, content):
   * headings say what a section is about, but a page title is shared by every
   * chunk of the page, so a heavy title weight lets a page whose title shares
   * one word with the question outrank the section that answers it.
   */
  columnWeights: Object.freeze([3, 3, 1] as const),
  /**
   * Exponent on IDF-weighted coverage of the query's words: a chunk that
   * answers more of the question beats one that repeats a part. Kept mild:
   * at 1 it hurt, since long questions carry words no answer repeats.
   */
  coverage: 0.3,
  /** Share of a chunk's score that comes from its page's best chunks (page-level evidence). */
  page: 0.7,
  /** Weight of a page's second-best chunk in the page score. */
  pageSecond: 0.3,
  /** Multiplier for chunks of the site the query names ("dart", "go"). */
  namedSite: 1.6,
  /** Each further chunk of a page already ranked is discounted by this, so the first results show several pages. */
  samePage: 0.5,
  /**
   * The terms a site's own index gives a section ("UPSERT" for INSERT): the
   * site's word for what the section is about, so weighed as a heading is.
   */
  indexTerms: 3,
  /**
   * Release notes name every feature once per version that touched it, so
   * they match most questions; unless the question asks about versions or
   * releases they step aside for the page that documents the feature.
   */
  releaseNotes: 0.5,
});
