import type { PreparedDocument } from "./ingest.ts";
import type { CompiledFilter } from "./filter.ts";
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

/** D1 allows at most 100 bound parameters per statement. */
const MAX_BOUND_PARAMETERS = 100;

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
export async function countDocuments(db: D1Database): Promise<number> {
  const row = await db.prepare("SELECT count(*) AS n FROM documents").first<{ n: number }>();
  return row?.n ?? 0;
}

/** The stored pages among `names`, keyed by name (missing names are absent). */
export async function findDocuments(db: D1Database, names: readonly string[]): Promise<Map<string, StoredDocument>> {
  const found = new Map<string, StoredDocument>();
  const unique = [...new Set(names)];
  for (let i = 0; i < unique.length; i += MAX_BOUND_PARAMETERS) {
    const batch = unique.slice(i, i + MAX_BOUND_PARAMETERS);
    const placeholders = batch.map((_, j) => `?${j + 1}`).join(", ");
    const { results } = await db
      .prepare(
        `SELECT name, uri, title, description, data_source, update_time, content, content_length_bytes
         FROM documents WHERE name IN (${placeholders})`,
      )
      .bind(...batch)
      .all<DocumentRow>();
    for (const row of results) {
      found.set(row.name, { ...toSummary(row), content: row.content, contentLengthBytes: row.content_length_bytes });
    }
  }
  return found;
}

/** One page of the corpus in name order, for listing it (MCP resources). */
export interface DocumentListing {
  documents: (DocumentSummary & { contentLengthBytes: number })[];
  /** The last name on this page when more follow: list again after it. */
  lastName?: string;
}

/**
 * Up to `limit` pages whose names sort after `afterName` (from the start
 * when it is empty), in name order: the primary key's order, so a listing
 * is stable while pages are added and each page is one index range scan.
 */
export async function listDocuments(db: D1Database, afterName: string, limit: number): Promise<DocumentListing> {
  const { results } = await db
    .prepare(
      `SELECT name, uri, title, description, data_source, update_time, content_length_bytes
       FROM documents WHERE name > ?1 ORDER BY name LIMIT ?2`,
    )
    .bind(afterName, limit + 1)
    .all<Omit<DocumentRow, "content">>();
  const page = results.slice(0, limit);
  const documents = page.map((row) => ({ ...toSummary(row), contentLengthBytes: row.content_length_bytes }));
  return results.length > limit ? { documents, lastName: page[page.length - 1]?.name } : { documents };
}

/** The stored names that start with `prefix`, in name order, at most `limit` (an index range scan). */
export async function documentNamesWithPrefix(db: D1Database, prefix: string, limit: number): Promise<string[]> {
  // SQLite compares text as UTF-8 bytes, so the names with a prefix are the range [prefix, prefix + U+10FFFF).
  const { results } = await db
    .prepare("SELECT name FROM documents WHERE name >= ?1 AND name < ?2 ORDER BY name LIMIT ?3")
    .bind(prefix, `${prefix}\u{10ffff}`, limit)
    .all<{ name: string }>();
  return results.map((row) => row.name);
}

/**
 * The size of each named page's content in UTF-8 bytes, keyed by name
 * (missing names are absent), without reading the content itself.
 */
export async function findContentLengths(db: D1Database, names: readonly string[]): Promise<Map<string, number>> {
  const lengths = new Map<string, number>();
  const unique = [...new Set(names)];
  for (let i = 0; i < unique.length; i += MAX_BOUND_PARAMETERS) {
    const batch = unique.slice(i, i + MAX_BOUND_PARAMETERS);
    const placeholders = batch.map((_, j) => `?${j + 1}`).join(", ");
    const { results } = await db
      .prepare(`SELECT name, content_length_bytes FROM documents WHERE name IN (${placeholders})`)
      .bind(...batch)
      .all<Pick<DocumentRow, "name" | "content_length_bytes">>();
    for (const row of results) lengths.set(row.name, row.content_length_bytes);
  }
  return lengths;
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
  db: D1Database,
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
  const [candidateRows, frequencyRows, sizeRows] = await db.batch<unknown>([candidates, frequencies, size]).catch(async (error: unknown) => {
    // A database without migration 0004 (or an engine without fts5vocab) still searches, with every word weighed alike.
    if (!/chunks_vocab|fts5vocab/.test(String(error))) throw error;
    console.warn(`search: index vocabulary unavailable, words are not weighed by rarity (${String(error)}); apply the D1 migrations`);
    return [await candidates.all(), undefined, undefined];
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

/** What one ingestion run did to the pages under its base URI. */
export interface SyncReport {
  added: string[];
  updated: string[];
  unchanged: string[];
  removed: string[];
}

/**
 * Makes the pages ingested under `baseUri` match `documents`, in one atomic
 * D1 batch: new pages are added, changed pages replaced (new updateTime),
 * unchanged pages left alone (updateTime kept) and, with `prune`, pages this
 * base URI ingested before but no longer has are removed. Pages of other base
 * URIs are never touched; a page another base URI owns is refused.
 */
export async function syncDocuments(
  db: D1Database,
  baseUri: string,
  documents: readonly PreparedDocument[],
  options: { prune: boolean; now?: Date },
): Promise<SyncReport> {
  const updateTime = (options.now ?? new Date()).toISOString();
  const { results: existing } = await db
    .prepare("SELECT name, base_uri, content_hash FROM documents WHERE base_uri = ?1")
    .bind(baseUri)
    .all<{ name: string; base_uri: string; content_hash: string }>();
  const hashes = new Map(existing.map((row) => [row.name, row.content_hash]));
  await refuseForeignPages(db, baseUri, documents.filter((doc) => !hashes.has(doc.name)));

  const report: SyncReport = { added: [], updated: [], unchanged: [], removed: [] };
  const statements: D1PreparedStatement[] = [];
  for (const doc of documents) {
    const previous = hashes.get(doc.name);
    if (previous === doc.contentHash) {
      report.unchanged.push(doc.name);
      continue;
    }
    (previous === undefined ? report.added : report.updated).push(doc.name);
    statements.push(...writeDocument(db, baseUri, doc, updateTime));
  }
  if (options.prune) {
    const kept = new Set(documents.map((doc) => doc.name));
    for (const name of hashes.keys()) {
      if (kept.has(name)) continue;
      report.removed.push(name);
      statements.push(db.prepare("DELETE FROM chunks WHERE document_name = ?1").bind(name));
      statements.push(db.prepare("DELETE FROM documents WHERE name = ?1").bind(name));
    }
  }
  if (statements.length > 0) await db.batch(statements);
  return report;
}

async function refuseForeignPages(db: D1Database, baseUri: string, candidates: readonly PreparedDocument[]): Promise<void> {
  for (let i = 0; i < candidates.length; i += MAX_BOUND_PARAMETERS - 1) {
    const batch = candidates.slice(i, i + MAX_BOUND_PARAMETERS - 1).map((doc) => doc.name);
    const placeholders = batch.map((_, j) => `?${j + 2}`).join(", ");
    const owned = await db
      .prepare(`SELECT name, base_uri FROM documents WHERE base_uri != ?1 AND name IN (${placeholders}) LIMIT 1`)
      .bind(baseUri, ...batch)
      .first<{ name: string; base_uri: string }>();
    if (owned) {
      throw new Error(
        `${owned.name} was ingested under base URI ${owned.base_uri}; ingest that folder again or ingest this one under a base URI that does not overlap`,
      );
    }
  }
}

/** Rows per multi-row chunk INSERT, so one statement stays under the parameter limit. */
const CHUNK_COLUMNS = 6;
const CHUNKS_PER_INSERT = Math.floor(MAX_BOUND_PARAMETERS / CHUNK_COLUMNS);

function writeDocument(db: D1Database, baseUri: string, doc: PreparedDocument, updateTime: string): D1PreparedStatement[] {
  const statements = [
    db.prepare("DELETE FROM chunks WHERE document_name = ?1").bind(doc.name),
    db
      .prepare(
        `INSERT INTO documents (name, uri, base_uri, data_source, title, description, content, content_length_bytes, content_hash, update_time)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
         ON CONFLICT (name) DO UPDATE SET
           uri = excluded.uri, data_source = excluded.data_source, title = excluded.title,
           description = excluded.description, content = excluded.content,
           content_length_bytes = excluded.content_length_bytes, content_hash = excluded.content_hash,
           update_time = excluded.update_time`,
      )
      .bind(doc.name, doc.uri, baseUri, doc.dataSource, doc.title, doc.description, doc.content, doc.contentLengthBytes, doc.contentHash, updateTime),
  ];
  for (let i = 0; i < doc.chunks.length; i += CHUNKS_PER_INSERT) {
    const rows = doc.chunks.slice(i, i + CHUNKS_PER_INSERT);
    const values = rows.map((_, j) => `(${Array.from({ length: CHUNK_COLUMNS }, (_, k) => `?${j * CHUNK_COLUMNS + k + 1}`).join(", ")})`);
    statements.push(
      db
        .prepare(`INSERT INTO chunks (document_name, chunk_id, position, title, heading, content) VALUES ${values.join(", ")}`)
        .bind(...rows.flatMap((chunk) => [doc.name, chunk.id, chunk.position, doc.title, chunk.heading, chunk.content])),
    );
  }
  return statements;
}
