import type { CompiledFilter } from "./filter.ts";
import { D1_LIMITS } from "../d1/limits.ts";
import type { D1Reader } from "../d1/sessions.ts";
import { timed } from "../observability/timings.ts";
import { RANKING } from "./rank.ts";

/** The document fields every result carries (SPEC 2). */
export interface DocumentSummary {
  name: string;
  uri: string;
  title: string;
  description: string;
  dataSource: string;
  updateTime: string;
}

/** A whole page. */
export interface StoredDocument extends DocumentSummary {
  content: string;
  contentLengthBytes: number;
}

/** One search hit: a chunk and the page it belongs to. */
export interface ChunkHit {
  parent: string;
  id: string;
  content: string;
  document: DocumentSummary;
}

interface DocumentRow {
  name: string;
  uri: string;
  title: string;
  description: string;
  data_source: string;
  update_time: string;
  content: string;
  content_length_bytes: number;
}

interface ChunkRow {
  parent: string;
  id: string;
  content: string;
  uri: string;
  title: string;
  description: string;
  data_source: string;
  update_time: string;
}

const MAX_BOUND_PARAMETERS = D1_LIMITS.boundParameters;

function toSummary(row: Omit<DocumentRow, "content" | "content_length_bytes">): DocumentSummary {
  return {
    name: row.name,
    uri: row.uri,
    title: row.title,
    description: row.description,
    dataSource: row.data_source,
    updateTime: row.update_time,
  };
}

/** How many pages the corpus holds. */
export async function countDocuments(db: D1Reader): Promise<number> {
  const row = await timed("d1", () => db.prepare("SELECT count(*) AS n FROM documents").first<{ n: number }>());
  return row?.n ?? 0;
}

/** The stored pages among `names`, keyed by name (missing names are absent). */
export async function findDocuments(db: D1Reader, names: readonly string[]): Promise<Map<string, StoredDocument>> {
  const found = new Map<string, StoredDocument>();
  const unique = [...new Set(names)];
  for (let i = 0; i < unique.length; i += MAX_BOUND_PARAMETERS) {
    const batch = unique.slice(i, i + MAX_BOUND_PARAMETERS);
    const placeholders = batch.map((_, j) => `?${j + 1}`).join(", ");
    const { results } = await timed("d1", () =>
      db
        .prepare(
          `SELECT name, uri, title, description, data_source, update_time, content, content_length_bytes
           FROM documents WHERE name IN (${placeholders})`,
        )
        .bind(...batch)
        .all<DocumentRow>(),
    );
    for (const row of results) {
      found.set(row.name, { ...toSummary(row), content: row.content, contentLengthBytes: row.content_length_bytes });
    }
  }
  return found;
}

/**
 * How many best-BM25 chunks are re-ranked. The re-ranking reads their text,
 * so its cost is bounded by this, not by the corpus size; it is also as deep
 * as paging goes (search.ts MAX_OFFSET).
 */
export const RANKED_CANDIDATES = 200;

/** A chunk that matched, with what the re-ranker needs to judge it. */
export interface Candidate extends ChunkHit {
  /** BM25 with RANKING.columnWeights, as a positive number: higher is better. */
  bm25: number;
  heading: string;
  position: number;
}

interface CandidateRow extends ChunkRow {
  heading: string;
  position: number;
  score: number;
}

/** Index statistics for weighing query words: in how many chunks each stem occurs, of how many. */
export interface TermStatistics {
  chunkCount: number;
  chunkFrequency: Map<string, number>;
}

/**
 * The best-BM25 chunks for an FTS5 expression, and how common each of
 * `stems` is in the index, in one round trip. With `unlessAlone`, pages
 * ingested under that base URI take part only when no other pages exist.
 * `ftsQuery` must come from `ftsQueryFor` (every term quoted), so user text
 * never reaches FTS syntax.
 */
export async function fetchCandidates(
  db: D1Reader,
  ftsQuery: string,
  stems: readonly string[],
  options: { filter: CompiledFilter | null; unlessAlone?: string },
): Promise<{ candidates: Candidate[]; statistics: TermStatistics }> {
  const { filter, unlessAlone } = options;
  const filterSql = filter ? `AND (${filter.sql})` : "";
  // The pages of `unlessAlone` only match while no other base URI has pages (one indexed look-up, evaluated once).
  const aloneSql = unlessAlone ? "AND (d.base_uri != ? OR NOT EXISTS (SELECT 1 FROM documents WHERE base_uri != ?))" : "";
  const params = [...(filter?.params ?? []), ...(unlessAlone ? [unlessAlone, unlessAlone] : [])];
  const candidates = db
    .prepare(
      `SELECT c.document_name AS parent, c.chunk_id AS id, c.content, c.heading, c.position,
              d.uri, d.title, d.description, d.data_source, d.update_time,
              bm25(chunks_fts, ${RANKING.columnWeights.map(Number).join(", ")}) AS score
       FROM chunks_fts
       JOIN chunks AS c ON c.rowid = chunks_fts.rowid
       JOIN documents AS d ON d.name = c.document_name
       WHERE chunks_fts MATCH ?1 ${filterSql} ${aloneSql}
       ORDER BY score
       LIMIT ${RANKED_CANDIDATES}`,
    )
    .bind(ftsQuery, ...params);
  const wanted = stems.slice(0, MAX_BOUND_PARAMETERS);
  const frequencies = db
    .prepare(`SELECT term, doc FROM chunks_vocab WHERE term IN (${wanted.map((_, i) => `?${i + 1}`).join(", ") || "NULL"})`)
    .bind(...wanted);
  // max(rowid) stands in for the chunk count: exact after a fresh ingest, never smaller, and O(log n) where count(*) is O(n).
  const size = db.prepare("SELECT coalesce(max(rowid), 0) AS n FROM chunks");
  const [candidateRows, frequencyRows, sizeRows] = await timed("d1", () => db.batch<unknown>([candidates, frequencies, size])).catch(async (error: unknown) => {
    // A database without migration 0004 (or an engine without fts5vocab) still searches, with every word weighed alike.
    if (!/chunks_vocab|fts5vocab/.test(String(error))) throw error;
    console.warn(`search: index vocabulary unavailable, words are not weighed by rarity (${String(error)}); apply the D1 migrations`);
    return [await timed("d1", () => candidates.all()), undefined, undefined];
  });
  const chunkFrequency = new Map(((frequencyRows?.results ?? []) as { term: string; doc: number }[]).map((row) => [row.term, row.doc]));
  const chunkCount = ((sizeRows?.results ?? [])[0] as { n: number } | undefined)?.n ?? 0;
  return {
    candidates: ((candidateRows?.results ?? []) as CandidateRow[]).map((row) => ({
      parent: row.parent,
      id: row.id,
      content: row.content,
      heading: row.heading,
      position: row.position,
      bm25: -row.score,
      document: toSummary({ ...row, name: row.parent }),
    })),
    statistics: { chunkCount, chunkFrequency },
  };
}
