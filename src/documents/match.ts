/**
 * Which of a query's terms choose the BM25 candidates. FTS5 scores every
 * chunk its MATCH expression admits, so OR-ing a word found in half the
 * corpus scores half the corpus: at 100,000 chunks a question of common
 * words cost ten times a keyword query. The rarest words say what a question
 * is about, so they choose the candidates, within a budget of index
 * postings; every word still ranks them (rank.ts weighs coverage of all).
 */

/** One alternative of the MATCH expression: a quoted word or phrase, and the index terms (stems) it reads. */
export interface MatchTerm {
  /** As FTS5 reads it, quoted: `"cache"`, `"get_documents"`, `"json decode"`. */
  text: string;
  stems: readonly string[];
}

/**
 * At most this many index postings (chunks per stem, summed) take part in
 * choosing candidates, beyond the query's rarest word. FTS5 scores about a
 * thousand postings a millisecond on the benchmark's machine, so this bounds
 * the search at any corpus size, while a corpus of up to about 20,000 chunks
 * (dart.dev and go.dev together) keeps every word of nearly every query:
 * 5,000 cost the evaluation's MRR@10 0.01 there (BENCHMARKS.md, EVALUATION.md).
 */
export const MATCH_POSTINGS_BUDGET = 20_000;

/** What the index says about the query's stems: in how many chunks each occurs. */
export interface StemFrequencies {
  get(stem: string): number | undefined;
}

/** How the candidates are chosen. */
export interface MatchPlan {
  /** The FTS5 expression. */
  expression: string;
  /** True when no word fitted the budget and every word must occur: the caller widens it when it finds nothing. */
  allRequired: boolean;
  /** The rarest word alone, for widening an `allRequired` match that found nothing. */
  rarest: string;
}

/**
 * The MATCH expression for a query's terms. Without index statistics every
 * term is OR-ed. Otherwise terms are taken rarest first while their postings
 * fit MATCH_POSTINGS_BUDGET (the rarest always; a term no chunk has costs
 * nothing), OR-ed. When even the rarest word is commoner than the budget,
 * the two rarest terms must both occur (AND): their intersection is small
 * and what the question is about.
 *
 * @example matchFor([{ text: '"cache"', stems: ["cach"] }, { text: '"error"', stems: ["error"] }], new Map([["cach", 900], ["error", 60000]])) // { expression: '"cache"', allRequired: false, rarest: '"cache"' }
 */
export function matchFor(terms: readonly MatchTerm[], frequencies: StemFrequencies | null): MatchPlan {
  const all = terms.map((term) => term.text);
  if (!frequencies || terms.length <= 1) return { expression: all.join(" OR "), allRequired: false, rarest: all[0] ?? "" };
  // A phrase (an identifier) matches no more chunks than its rarest word: those are the ones BM25 scores.
  const cost = (term: MatchTerm) => Math.min(...term.stems.map((stem) => frequencies.get(stem) ?? 0));
  const byCost = terms.map((term) => ({ term, cost: cost(term) })).sort((a, b) => a.cost - b.cost);
  const rarest = byCost[0] as (typeof byCost)[number];
  if (rarest.cost > MATCH_POSTINGS_BUDGET) {
    const pair = byCost.slice(0, 2).map(({ term }) => term.text);
    return { expression: all.filter((text) => pair.includes(text)).join(" AND "), allRequired: true, rarest: rarest.term.text };
  }
  // The expression keeps the query's own order (it reads like the query; FTS5's results do not depend on it).
  const chosen = [rarest.term.text];
  let spent = rarest.cost;
  for (const { term, cost: termCost } of byCost.slice(1)) {
    if (spent + termCost > MATCH_POSTINGS_BUDGET) break;
    chosen.push(term.text);
    spent += termCost;
  }
  return { expression: all.filter((text) => chosen.includes(text)).join(" OR "), allRequired: false, rarest: rarest.term.text };
}
