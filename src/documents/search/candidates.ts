import type { CompiledFilter } from "./filter.ts";
import { D1_LIMITS } from "../../d1/limits.ts";
import { toSummary, type ChunkHit } from "../document.ts";
import type { BoundStatement, StatementRunner } from "../../d1/statements.ts";
import { chunkCountSql } from "./common-terms.ts";
import { chosenMatch, plainMatch, type MatchSql, type MatchTerm } from "./choose-match.ts";
import type { RankingWeights } from "./ranking-weights.ts";
import { HIDDEN_CHUNKS_CTE, seenByDefaultSql } from "../versions.ts";

/** A chunk and its page's fields as the candidate and vector-neighbour statements select them. */
export interface ChunkRow {
  parent: string;
  id: string;
  content: string;
  uri: string;
  title: string;
  description: string;
  data_source: string;
  update_time: string;
  version: string;
}

const MAX_BOUND_PARAMETERS = D1_LIMITS.boundParameters;

/**
 * How many best-BM25 chunks are re-ranked. The re-ranking reads their text,
 * so its cost is bounded by this, not by the corpus size; it is also as deep
 * as paging goes (search-documents.ts MAX_OFFSET).
 */
export const RANKED_CANDIDATES = 200;

/** A chunk that matched, with what the re-ranker needs to judge it. */
export interface Candidate extends ChunkHit {
  /** BM25 with the ranking's column weights, as a positive number: higher is better. */
  bm25: number;
  heading: string;
  position: number;
  /** The words the site's own index attached to the chunk (migration 0015): searched, never shown. */
  terms: string;
}

interface CandidateRow extends ChunkRow {
  heading: string;
  position: number;
  terms: string;
  score: number;
}

/** Index statistics for weighing query words: in how many chunks each stem occurs, of how many. */
export interface TermStatistics {
  chunkCount: number;
  chunkFrequency: Map<string, number>;
}

/** What one retrieval asks the index: the terms that may choose candidates, the stems to weigh, and which pages step aside. */
export interface CandidateQuery {
  /** From `matchTerms` (every term quoted), so user text never reaches FTS syntax. */
  terms: readonly MatchTerm[];
  stems: readonly string[];
  filter: CompiledFilter | null;
  /** Pages ingested under this base URI take part only when no other pages exist. */
  unlessAlone?: string;
  /**
   * Data sources hidden from the caller (visibility.ts), as a JSON array: the
   * filter already leaves their pages out; here they do not count as "other
   * pages" either, so whether `unlessAlone` steps aside tells nothing of them.
   */
  hiddenSources?: string;
}

/**
 * The chunk count, as migration 0012's triggers keep it: exact at every
 * generation (a refresh deletes and re-inserts chunks, so max(rowid) only
 * grows) and one row to read, where count(*) reads the whole table.
 */
const CHUNK_COUNT_SQL = "coalesce((SELECT chunks FROM corpus_statistics WHERE id = 1), 0)";
const SIZE_STATEMENT: BoundStatement = { sql: `SELECT ${CHUNK_COUNT_SQL} AS n`, params: [] };

/** The statements that tell how common each stem is in the index and how many chunks it has, for weighing words. */
function statisticsStatements(stems: readonly string[]): BoundStatement[] {
  const wanted = stems.slice(0, MAX_BOUND_PARAMETERS);
  const frequencies = {
    sql: wanted.length
      ? `SELECT term, doc FROM (SELECT s.column1 AS term, ${chunkCountSql("s.column1")} AS doc FROM (VALUES ${wanted.map((_, i) => `(?${i + 1})`).join(", ")}) AS s) WHERE doc > 0`
      : "SELECT NULL AS term, 0 AS doc WHERE 0",
    params: wanted,
  };
  return [frequencies, SIZE_STATEMENT];
}

/** The best-BM25 chunks (BM25 with the column weights and the index terms' weight) for the MATCH expression `match` gives (choose-match.ts), within the query's filter. */
function candidateStatement(query: CandidateQuery, match: MatchSql, ranking: Pick<RankingWeights, "columnWeights" | "indexTerms">): BoundStatement {
  const bm25 = `bm25(chunks_fts, ${[...ranking.columnWeights, ranking.indexTerms].map(Number).join(", ")})`;
  return query.filter ? filteredCandidates(query, match, query.filter, bm25) : bestCandidates(query, match, bm25);
}
/**
 * The chunk counts of the stems the match looked up, and the corpus's (as
 * term CORPUS_TERM), as extra rows of the candidate statement (score NULL,
 * so they sort first): ranking weighs words by them, they are counted once,
 * and no statement of their own costs the round trip more.
 */
function stemRows(match: MatchSql): string {
  const empty = "NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL";
  return match.with
    ? `UNION ALL SELECT ${empty}, stem, doc FROM match_stems WHERE doc > 0
       UNION ALL SELECT ${empty}, '${CORPUS_TERM}', ${CHUNK_COUNT_SQL}`
    : "";
}

/** The term of stemRows' row that counts the corpus's chunks: no stem is empty. */
const CORPUS_TERM = "";

const COLUMNS = `c.document_name AS parent, c.chunk_id AS id, c.content, c.heading, c.position, c.terms,
       d.uri, d.title, d.description, d.data_source, d.update_time, d.version`;

/**
 * The best chunks without a filter: the top RANKED_CANDIDATES are chosen in
 * the FTS5 index alone (rowid and score), and only those are joined to their
 * chunk and page. Joining first would read every match's chunk and page row
 * (a page's content included, since update_time is stored after it) and sort
 * them all, which at 100,000 chunks costs more than the search itself.
 * Older versions' chunks (versions.ts HIDDEN_CHUNKS_CTE) are left out in
 * the index too, by rowid.
 */
function bestCandidates(query: CandidateQuery, match: MatchSql, bm25: string): BoundStatement {
  return {
    sql: `WITH ${match.with ? `${match.with},` : ""} ${HIDDEN_CHUNKS_CTE}, ${query.unlessAlone ? bestStepAside(`?${match.params.length + 1}`, match, bm25) : bestOfAll(match, bm25)}
       SELECT ${COLUMNS}, best.score AS score, NULL AS term, NULL AS doc
       FROM best
       JOIN chunks AS c ON c.rowid = best.chunk
       JOIN documents AS d ON d.name = c.document_name
       ${stemRows(match)}
       ORDER BY score`,
    params: query.unlessAlone ? [...match.params, query.unlessAlone] : match.params,
  };
}

/** The CTE `best (chunk, score)`: the top RANKED_CANDIDATES of the whole index. */
function bestOfAll(match: MatchSql, bm25: string): string {
  return `best AS (
         SELECT chunks_fts.rowid AS chunk, ${bm25} AS score FROM chunks_fts
         WHERE chunks_fts MATCH ${match.expression} AND chunks_fts.rowid NOT IN (SELECT chunk FROM hidden_chunks)
         ORDER BY score LIMIT ${RANKED_CANDIDATES})`;
}

/**
 * The CTE `best (chunk, score)` when the pages of base URI `alone` (an SQL
 * parameter) step aside unless no other pages exist. Their chunks are few
 * (the default corpus), so the index is ranked as if they took part, with
 * room for all of them in the top, and they step aside from that top only:
 * asking each of 100,000 matches whether it is one of theirs cost a fifth of
 * the search. The set of their chunks, and whether other pages exist, are
 * each computed once per query.
 */
function bestStepAside(alone: string, match: MatchSql, bm25: string): string {
  return `own_chunks (chunk) AS MATERIALIZED (
         SELECT own.rowid FROM chunks AS own JOIN documents AS page ON page.name = own.document_name WHERE page.base_uri = ${alone}),
       ranked AS (
         SELECT chunks_fts.rowid AS chunk, ${bm25} AS score FROM chunks_fts
         WHERE chunks_fts MATCH ${match.expression} AND chunks_fts.rowid NOT IN (SELECT chunk FROM hidden_chunks)
         ORDER BY score LIMIT ${RANKED_CANDIDATES} + (SELECT count(*) FROM own_chunks)),
       best AS (
         SELECT chunk, score FROM ranked
         WHERE NOT EXISTS (SELECT 1 FROM documents WHERE base_uri != ${alone}) OR chunk NOT IN (SELECT chunk FROM own_chunks)
         ORDER BY score LIMIT ${RANKED_CANDIDATES})`;
}

/**
 * The best chunks of the pages a filter admits: the filter reads page fields, so every match is joined to its page first.
 * A filter that does not name `version` sees each data source's current version and the unversioned pages.
 */
function filteredCandidates(query: CandidateQuery, match: MatchSql, filter: CompiledFilter, bm25: string): BoundStatement {
  // The pages of `unlessAlone` only match while no other base URI has pages (one indexed look-up, evaluated once).
  const hiddenSql = query.hiddenSources ? "AND other.data_source NOT IN (SELECT value FROM json_each(?))" : "";
  const aloneSql = query.unlessAlone ? `AND (d.base_uri != ? OR NOT EXISTS (SELECT 1 FROM documents AS other WHERE other.base_uri != ? ${hiddenSql}))` : "";
  const versionSql = filter.namesVersion ? "" : `AND ${seenByDefaultSql("d")}`;
  return {
    // The filter's and the step-aside's `?` take the numbers after the match's own.
    sql: `WITH ${match.with ? `${match.with},` : ""} filtered AS (
         SELECT ${COLUMNS}, ${bm25} AS score, NULL AS term, NULL AS doc
         FROM chunks_fts
         JOIN chunks AS c ON c.rowid = chunks_fts.rowid
         JOIN documents AS d ON d.name = c.document_name
         WHERE chunks_fts MATCH ${match.expression} AND (${filter.sql}) ${versionSql} ${aloneSql}
         ORDER BY score
         LIMIT ${RANKED_CANDIDATES})
       SELECT * FROM filtered
       ${stemRows(match)}
       ORDER BY score`,
    params: [...match.params, ...filter.params, ...(query.unlessAlone ? [query.unlessAlone, query.unlessAlone, ...(query.hiddenSources ? [query.hiddenSources] : [])] : [])],
  };
}

/**
 * The best-BM25 chunks for a query and how common each of its stems is, in
 * one round trip: the candidate statement chooses its own MATCH expression
 * from the index vocabulary (choose-match.ts), beside the statistics for weighing
 * words. Only when a match that left words out found nothing is there a
 * second, with every word OR-ed. The benchmark runs this very function on the
 * raw SQLite file, so both measure the same statements.
 */
export async function fetchCandidates(
  runner: StatementRunner,
  query: CandidateQuery,
  ranking: RankingWeights,
): Promise<{ candidates: Candidate[]; statistics: TermStatistics }> {
  const weights = ranking;
  // The filter's values and the step-aside's three take their share of the statement's bound values.
  const room = D1_LIMITS.boundParameters - (query.filter?.params.length ?? 0) - 3;
  const chosen = chosenMatch(query.terms, { weighed: query.stems, room });
  const statements = chosen
    ? [candidateStatement(query, chosen, weights)]
    : [candidateStatement(query, plainMatch(query.terms), weights), ...statisticsStatements(query.stems)];
  const rows = await runner.rows(statements).catch((error: unknown) => {
    // A database without migrations 0004–0005 or 0012 (or an engine without fts5vocab) still searches, with every word weighed alike.
    if (!/chunks_vocab|common_terms|corpus_statistics|fts5vocab/.test(String(error))) throw error;
    console.warn(`search: index vocabulary unavailable, words are not weighed by rarity (${String(error)}); apply the D1 migrations`);
    return null;
  });
  if (!rows) {
    const [plainRows = []] = await runner.rows([candidateStatement(query, plainMatch(query.terms), weights)]);
    return { candidates: plainRows.map(toCandidate), statistics: { chunkCount: 0, chunkFrequency: new Map() } };
  }
  const [mixed = [], ...rest] = rows;
  const found = mixed.filter((row) => row.term === null || row.term === undefined);
  const frequencyRows = chosen ? mixed.filter((row) => row.term !== null && row.term !== undefined && row.term !== CORPUS_TERM) : (rest[0] ?? []);
  const chunkCount = chosen ? mixed.find((row) => row.term === CORPUS_TERM)?.doc : rest[1]?.[0]?.n;
  // Nothing found by a match that left words out or required two: every word OR-ed finds what any of them can.
  const widen = chosen !== null && found.length === 0 && query.terms.length > 1;
  const candidateRows = widen ? ((await runner.rows([candidateStatement(query, plainMatch(query.terms), weights)]))[0] ?? []).filter((row) => row.term == null) : found;
  return {
    candidates: candidateRows.map(toCandidate),
    statistics: {
      chunkCount: typeof chunkCount === "number" ? chunkCount : 0,
      // Ranking weighs the query's words by their own stems only (weighTerms' contract).
      chunkFrequency: new Map(
        (frequencyRows as unknown as { term: string; doc: number }[]).filter((row) => query.stems.includes(row.term)).map((row) => [row.term, row.doc]),
      ),
    },
  };
}

function toCandidate(row: Record<string, unknown>): Candidate {
  const candidate = row as unknown as CandidateRow;
  return {
    parent: candidate.parent,
    id: candidate.id,
    content: candidate.content,
    heading: candidate.heading,
    position: candidate.position,
    terms: candidate.terms ?? "",
    bm25: -candidate.score,
    document: toSummary({ ...candidate, name: candidate.parent }),
  };
}
