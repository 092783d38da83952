/**
 * Which of a query's terms choose the BM25 candidates. FTS5 scores every
 * chunk its MATCH expression admits, so OR-ing a word found in half the
 * corpus scores half the corpus: at 100,000 chunks a question of common
 * words cost ten times a keyword query. The rarest words say what a question
 * is about, so they choose the candidates, within a budget of index
 * postings; every word still ranks them (rank.ts weighs coverage of all).
 *
 * The choice is made in SQL, from the index vocabulary, inside the candidate
 * statement itself, so it costs no round trip of its own.
 */

import { chunkCountSql } from "./common-terms.ts";

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

/** How a statement gets its MATCH expression: SQL for it, the CTEs it needs, and their bound values (numbered from ?1). */
export interface MatchSql {
  /** CTEs to put in the statement's WITH clause, or "" when none. */
  with: string;
  /** An SQL expression whose value is the FTS5 MATCH expression. */
  expression: string;
  params: string[];
}

/**
 * Every term OR-ed, bound as one value: for a database without the index
 * vocabulary (migration 0004), and for widening a match that found nothing.
 *
 * @example plainMatch([{ text: '"retry"', stems: ["retri"] }]) // { with: "", expression: "?1", params: ['"retry"'] }
 */
export function plainMatch(terms: readonly MatchTerm[]): MatchSql {
  return { with: "", expression: "?1", params: [terms.map((term) => term.text).join(" OR ")] };
}

/**
 * The MATCH expression chosen from the chunk counts of the index's terms (common-terms.ts):
 * terms are taken rarest first while their postings fit `budget` (the
 * rarest always; a phrase costs as much as its rarest word, since it matches
 * no more chunks; a term no chunk has costs nothing), OR-ed in the query's
 * order. When even the rarest is commoner than the budget, the two rarest
 * must both occur (AND): their intersection is small and what the question
 * is about. Each stem of the terms and of `weighed` (the words ranking
 * weighs) is looked up once, in the CTE `match_stems (stem, doc)`, which the
 * candidate statement also returns for weighing words.
 */
export function chosenMatch(
  terms: readonly MatchTerm[],
  options: { weighed?: readonly string[]; room: number; budget?: number },
): MatchSql | null {
  const { weighed = [], room, budget = MATCH_POSTINGS_BUDGET } = options;
  const first = [...new Set(terms.map((term) => term.stems[0] ?? ""))];
  // Each term's text and first stem must fit the bound values the statement leaves (D1 allows 100); further stems as room allows.
  if (terms.length + first.length > room) return null;
  const stems = [...new Set([...first, ...weighed, ...terms.flatMap((term) => term.stems.slice(1))])].slice(0, room - terms.length);
  const stemParam = new Map(stems.map((stem, i) => [stem, `?${terms.length + i + 1}`]));
  const rows = terms.flatMap((term, position) =>
    term.stems.flatMap((stem) => (stemParam.has(stem) ? [`(?${position + 1}, ${stemParam.get(stem)}, ${position})`] : [])),
  );
  // Only this code's own numbers (positions, the budget) are written into the SQL; every word of the query is bound.
  const limit = Math.floor(budget);
  const several = terms.length > 1;
  return {
    with: `match_stems (stem, doc) AS MATERIALIZED (
         SELECT s.column1, ${chunkCountSql("s.column1")} FROM (VALUES ${stems.map((stem) => `(${stemParam.get(stem)})`).join(", ")}) AS s),
       match_terms (text, stem, position) AS (VALUES ${rows.join(", ")}),
       match_costs AS MATERIALIZED (
         SELECT t.text, min(t.position) AS position, min(s.doc) AS cost
         FROM match_terms AS t JOIN match_stems AS s ON s.stem = t.stem GROUP BY t.text),
       match_running AS (
         SELECT text, position, sum(cost) OVER (ORDER BY cost, position ROWS UNBOUNDED PRECEDING) AS spent,
                row_number() OVER (ORDER BY cost, position) AS place
         FROM match_costs),
       match_choice (expression) AS (
         SELECT CASE WHEN ${several ? "1" : "0"} AND (SELECT min(cost) FROM match_costs) > ${limit}
                  THEN (SELECT group_concat(text, ' AND ') FROM (SELECT text FROM match_running WHERE place <= 2 ORDER BY position))
                  ELSE (SELECT group_concat(text, ' OR ') FROM (SELECT text FROM match_running WHERE place = 1 OR spent <= ${limit} ORDER BY position))
                END)`,
    expression: "(SELECT expression FROM match_choice)",
    params: [...terms.map((term) => term.text), ...stems],
  };
}

/** The expression `chosenMatch` chose, for tests and for reading a plan. */
export function choiceStatement(match: MatchSql): { sql: string; params: string[] } {
  return { sql: `WITH ${match.with} SELECT expression FROM match_choice`, params: match.params };
}
