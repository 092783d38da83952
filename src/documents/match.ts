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

/**
 * Rows of (term, stem) the choice binds, two parameters each: with the
 * candidate statement's own few parameters, within D1's 100. Every term gets
 * a row first (queries have at most 32); further parts of identifiers fill the rest.
 */
const MAX_MATCH_ROWS = 45;

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
 * The MATCH expression chosen from the index vocabulary (`chunks_vocab`):
 * terms are taken rarest first while their postings fit `budget` (the
 * rarest always; a phrase costs as much as its rarest word, since it matches
 * no more chunks; a term no chunk has costs nothing), OR-ed in the query's
 * order. When even the rarest is commoner than the budget, the two rarest
 * must both occur (AND): their intersection is small and what the question
 * is about. The CTE `match_choice` also says which it chose (choiceStatement).
 */
export function chosenMatch(terms: readonly MatchTerm[], budget: number = MATCH_POSTINGS_BUDGET): MatchSql {
  const rows: [string, string, number][] = terms.map((term, order) => [term.text, term.stems[0] ?? "", order]);
  for (const [order, term] of terms.entries()) {
    for (const stem of term.stems.slice(1)) if (rows.length < MAX_MATCH_ROWS) rows.push([term.text, stem, order]);
  }
  const params = rows.flatMap(([text, stem]) => [text, stem]);
  const values = rows.map(([, , order], i) => `(?${2 * i + 1}, ?${2 * i + 2}, ${order})`).join(", ");
  const limit = Math.floor(budget);
  return {
    with: `match_terms (text, stem, position) AS (VALUES ${values}),
       match_costs AS (
         SELECT t.text, min(t.position) AS position, min(coalesce(v.doc, 0)) AS cost
         FROM match_terms AS t LEFT JOIN chunks_vocab AS v ON v.term = t.stem GROUP BY t.text),
       match_running AS (
         SELECT text, position, cost,
                sum(cost) OVER (ORDER BY cost, position ROWS UNBOUNDED PRECEDING) AS spent,
                row_number() OVER (ORDER BY cost, position) AS place
         FROM match_costs),
       match_choice (expression, all_required, rarest) AS (
         SELECT CASE WHEN (SELECT count(*) FROM match_costs) > 1 AND (SELECT min(cost) FROM match_costs) > ${limit}
                  THEN (SELECT group_concat(text, ' AND ') FROM (SELECT text FROM match_running WHERE place <= 2 ORDER BY position))
                  ELSE (SELECT group_concat(text, ' OR ') FROM (SELECT text FROM match_running WHERE place = 1 OR spent <= ${limit} ORDER BY position))
                END,
                (SELECT count(*) FROM match_costs) > 1 AND (SELECT min(cost) FROM match_costs) > ${limit},
                (SELECT text FROM match_running WHERE place = 1))`,
    expression: "(SELECT expression FROM match_choice)",
    params,
  };
}

/** What `chosenMatch` chose: the expression, whether every one of its terms must occur, and the rarest term alone. */
export function choiceStatement(match: MatchSql): { sql: string; params: string[] } {
  return { sql: `WITH ${match.with} SELECT expression, all_required, rarest FROM match_choice`, params: match.params };
}
