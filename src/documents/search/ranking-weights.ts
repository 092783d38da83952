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
  /** Multiplier for other sources' chunks when the question's words plainly belong to one source (rank.ts siteAffinity); 1 is off. */
  readonly otherSite: number;
  /** Share of the marking words' weight one source needs to own the question. */
  readonly siteDominance: number;
  /** A source's share of the candidate chunks holding a word that makes the word mark it. */
  readonly siteMarker: number;
  /** Candidate chunks a word must be in to mark a source. */
  readonly siteMarkerChunks: number;
  /** Share of the question's found words' weight the marking words must carry. */
  readonly siteEvidence: number;
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
   * A question whose words plainly belong to one data source (siteAffinity):
   * chunks of the other sources are scaled by this, so a Go page does not
   * lead a question about Dart isolates. 1 turns it off, and it is off: at 0.5
   * it lifted real-tune.json (R@5 0.818 → 0.831, other site first 6 → 4 of
   * 77) but the held-out half did not confirm it (MRR@10 0.606 → 0.604) and
   * dart-go.json lost a paraphrase (R@5 0.958 → 0.951). EVALUATION.md.
   */
  otherSite: 1,
  /**
   * The share of the marking words' rarity weight one data source must have
   * before the others step back: high, because a question that fits several
   * sources (formatting, dependencies) must keep them all.
   */
  siteDominance: 0.8,
  /** A word marks a data source when that source's share of the candidate chunks holding it is at least this. */
  siteMarker: 0.9,
  /** A word in fewer candidate chunks than this is an accident of wording, not a source's vocabulary. */
  siteMarkerChunks: 4,
  /** The marking words must carry at least this share of the question's found words' weight, so one stray word decides nothing. */
  siteEvidence: 0.15,
});
