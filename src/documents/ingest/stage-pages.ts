/**
 * A run's pages staged (generations.ts): each compared with the page readers
 * see now, a new or changed one written whole into the staging tables, every
 * one entered in the run's manifest, in D1 batches planned within D1's
 * limits. Nothing staged is seen until the run is published
 * (publish-generation.ts).
 */
import { D1_BATCH_LIMITS, jsonRows, planBatches, utf8Bytes, type StatementGroup } from "../../d1/batches.ts";
import { D1_LIMITS, rowsPerInsert } from "../../d1/limits.ts";
import { preparedOnce } from "../../d1/statements.ts";
import type { SyncReport } from "../../sync-report.ts";
import { liveHashes, NAMES_PER_LOOKUP, runGuarded, withRetries } from "./generations.ts";
import type { PreparedDocument } from "./prepare-pages.ts";

/** A page's HTTP validators, published with it (site crawls only). */
export interface StagedValidator {
  url: string;
  name: string;
  etag?: string;
  lastModified?: string;
  links: readonly string[];
}

/** The in-scope links kept per page for the next crawl (a 304 has no body to read them from). */
const MAX_LINKS_KEPT = 5000;

/** A term of a site's back-of-book index (src/readers/site/back-index.ts) and the page and section it points to. */
export interface StagedIndexTerm {
  /** The URL of the index page it was read from. */
  source: string;
  /** The document name of the page it points to. */
  target: string;
  /** The fragment it points to; "" for the page itself. */
  anchor: string;
  term: string;
}

/** How far the staging has got, after each batch. */
export interface StageProgress {
  pages: number;
  totalPages: number;
  bytes: number;
  totalBytes: number;
}

/** Two statements of every staged batch are the run's: the guard (runGuarded) and its touch. */
const STAGE_LIMITS = { ...D1_BATCH_LIMITS, statements: D1_BATCH_LIMITS.statements - 2 };

/**
 * Stages pages of the run: each page is compared with the one readers see
 * now, a new or changed page is staged whole (its row and its chunks), and
 * every page — and every name in `keep`, pages the source still has but did
 * not send again (a crawl's 304s) — is entered in the run's manifest.
 * Safe to repeat (a retried step): a page staged again replaces itself.
 * Returns what publishing will do to these pages.
 */
export async function stagePages(
  db: D1Database,
  id: string,
  baseUri: string,
  documents: readonly PreparedDocument[],
  options: {
    keep?: readonly string[];
    validators?: readonly StagedValidator[];
    /** Index pages' terms, by the index page read: staged again for a page read again. */
    indexTerms?: readonly StagedIndexTerm[];
    onProgress?: (progress: StageProgress) => void;
  } = {},
): Promise<Pick<SyncReport, "added" | "updated" | "unchanged">> {
  const sent = new Set(documents.map((doc) => doc.name));
  const kept = (options.keep ?? []).filter((name) => !sent.has(name));
  const live = await liveHashes(db, baseUri, [...sent, ...kept]);
  await refuseForeignPages(db, baseUri, documents.filter((doc) => !live.has(doc.name)).map((doc) => doc.name));

  const report: Pick<SyncReport, "added" | "updated" | "unchanged"> = { added: [], updated: [], unchanged: [] };
  const groups: (StatementGroup<D1PreparedStatement> & { pages: number })[] = [];
  const prepare = preparedOnce(db);
  const manifest = (name: string, outcome: "added" | "updated" | "unchanged") =>
    prepare("INSERT INTO staged_pages (generation, name, outcome) VALUES (?1, ?2, ?3) ON CONFLICT (generation, name) DO UPDATE SET outcome = excluded.outcome").bind(id, name, outcome);
  const unchangedSent: string[] = [];
  for (const doc of documents) {
    const previous = live.get(doc.name);
    if (previous === doc.contentHash) {
      report.unchanged.push(doc.name);
      unchangedSent.push(doc.name);
      continue;
    }
    const outcome = previous === undefined ? "added" : "updated";
    report[outcome].push(doc.name);
    const page = stageDocument(prepare, id, baseUri, doc);
    groups.push({ statements: [...page.statements, manifest(doc.name, outcome)], bytes: page.bytes, pages: 1 });
  }
  const unchangedKept = kept.filter((name) => live.has(name));
  report.unchanged.push(...unchangedKept);
  // An unchanged page has only its manifest row to stage: those rows go many to a statement.
  const stageUnchanged = (names: readonly string[], countsAsSent: boolean) => {
    for (const part of jsonRows(names.map((name) => [name]), ROWS_JSON_BYTES)) {
      groups.push({ statements: [prepare(UNCHANGED_MANIFEST).bind(id, part.json)], bytes: part.bytes, pages: countsAsSent ? part.rows : 0 });
    }
  };
  stageUnchanged(unchangedSent, true);
  stageUnchanged(unchangedKept, false);
  for (const validator of options.validators ?? []) groups.push({ ...stageValidator(prepare, id, validator), pages: 0 });
  groups.push(...stageIndexTerms(prepare, id, options.indexTerms ?? []).map((group) => ({ ...group, pages: 0 })));

  const totalPages = groups.reduce((sum, group) => sum + group.pages, 0);
  const totalBytes = groups.reduce((sum, group) => sum + group.bytes, 0);
  const progress: StageProgress = { pages: 0, totalPages, bytes: 0, totalBytes };
  const touch = db.prepare("UPDATE generations SET touched_time = ?2 WHERE id = ?1").bind(id, new Date().toISOString());
  // The plan keeps groups whole and in order, so walking the groups alongside tells what each batch finished.
  let group = 0;
  for (const batch of planBatches(groups, STAGE_LIMITS)) {
    await withRetries(() => runGuarded(db, id, [touch, ...batch]));
    for (let statements = 0; statements < batch.length && group < groups.length; group += 1) {
      const done = groups[group] as (typeof groups)[number];
      statements += done.statements.length;
      progress.pages += done.pages;
      progress.bytes += done.bytes;
    }
    options.onProgress?.({ ...progress });
  }
  return report;
}

/**
 * The report of a run that would change nothing readers see (every page
 * unchanged and, with `prune`, none to remove), or null when it must be
 * written: an unchanged run writes nothing at all, not even its manifest.
 */
export async function unchangedRun(
  db: D1Database,
  baseUri: string,
  documents: readonly PreparedDocument[],
  options: { keep?: readonly string[]; prune: boolean; pruneVersion?: string },
): Promise<SyncReport | null> {
  const names = new Set([...documents.map((doc) => doc.name), ...(options.keep ?? [])]);
  const live = await liveHashes(db, baseUri, [...names]);
  if (documents.some((doc) => live.get(doc.name) !== doc.contentHash)) return null;
  if (options.prune) {
    const { results } = await withRetries(() =>
      db
        .prepare("SELECT name FROM documents WHERE base_uri = ?1 AND (?2 IS NULL OR version = ?2)")
        .bind(baseUri, options.pruneVersion ?? null)
        .all<{ name: string }>(),
    );
    if (results.some((row) => !names.has(row.name))) return null;
  }
  return { added: [], updated: [], unchanged: [...names].filter((name) => live.has(name)), removed: [] };
}

/** Refuses pages another base URI owns, before anything of them is staged. */
async function refuseForeignPages(db: D1Database, baseUri: string, names: readonly string[]): Promise<void> {
  for (let i = 0; i < names.length; i += NAMES_PER_LOOKUP) {
    const batch = names.slice(i, i + NAMES_PER_LOOKUP);
    const placeholders = batch.map((_, j) => `?${j + 2}`).join(", ");
    const owned = await withRetries(() =>
      db
        .prepare(`SELECT name, base_uri FROM documents WHERE base_uri != ?1 AND name IN (${placeholders}) LIMIT 1`)
        .bind(baseUri, ...batch)
        .first<{ name: string; base_uri: string }>(),
    );
    if (owned) {
      throw new Error(
        `${owned.name} was ingested under base URI ${owned.base_uri}; ingest that folder again or ingest this one under a base URI that does not overlap`,
      );
    }
  }
}

/**
 * The JSON of rows one statement carries when many go together (jsonRows), well under D1's
 * largest string. Bound value by value, Python's docs took a statement per 20 index terms and
 * one per unchanged page: 2.8 s and 1.6 s of a refresh through the CLI's proxy.
 */
const ROWS_JSON_BYTES = D1_LIMITS.rowBytes / 4;

/** Manifest rows of unchanged pages, their names a JSON array of one-element rows at ?2 (WHERE true: SQLite's upsert after a SELECT needs one). */
const UNCHANGED_MANIFEST = `INSERT INTO staged_pages (generation, name, outcome)
  SELECT ?1, json_extract(value, '$[0]'), 'unchanged' FROM json_each(?2) WHERE true
  ON CONFLICT (generation, name) DO UPDATE SET outcome = excluded.outcome`;

/** Index terms, a JSON array of [source, target, anchor, term] rows at ?2. */
const STAGED_TERMS = `INSERT INTO staged_index_terms (generation, source, target, anchor, term)
  SELECT ?1, json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'), json_extract(value, '$[3]') FROM json_each(?2)`;

/** How the staging statements are prepared: each distinct SQL once (preparedOnce). */
type Prepare = (sql: string) => D1PreparedStatement;

/** Rows per multi-row staged chunk INSERT, so one statement stays under the parameter limit. */
const CHUNK_COLUMNS = 7;
const CHUNKS_PER_INSERT = rowsPerInsert(CHUNK_COLUMNS);

/** One page's staging statements (any earlier staging of it out, its row and chunks in) and the bytes they bind. */
function stageDocument(prepare: Prepare, id: string, baseUri: string, doc: PreparedDocument): StatementGroup<D1PreparedStatement> {
  const statements = [
    prepare("DELETE FROM staged_chunks WHERE generation = ?1 AND document_name = ?2").bind(id, doc.name),
    prepare(
      `INSERT OR REPLACE INTO staged_documents (generation, name, uri, base_uri, data_source, title, description, content, content_length_bytes, content_hash, version)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)`,
    ).bind(id, doc.name, doc.uri, baseUri, doc.dataSource, doc.title, doc.description, doc.content, doc.contentLengthBytes, doc.contentHash, doc.version ?? ""),
  ];
  let bytes = doc.contentLengthBytes + utf8Bytes(doc.name + doc.uri + baseUri + doc.title + doc.description) + 100;
  for (let i = 0; i < doc.chunks.length; i += CHUNKS_PER_INSERT) {
    const rows = doc.chunks.slice(i, i + CHUNKS_PER_INSERT);
    const values = rows.map((_, j) => `(${Array.from({ length: CHUNK_COLUMNS }, (_, k) => `?${j * CHUNK_COLUMNS + k + 1}`).join(", ")})`);
    statements.push(
      prepare(`INSERT INTO staged_chunks (generation, document_name, chunk_id, position, title, heading, content) VALUES ${values.join(", ")}`).bind(
        ...rows.flatMap((chunk) => [id, doc.name, chunk.id, chunk.position, doc.title, chunk.heading, chunk.content]),
      ),
    );
    bytes += rows.reduce((sum, chunk) => sum + utf8Bytes(doc.name + chunk.id + doc.title + chunk.heading + chunk.content) + 8, 0);
  }
  return { statements, bytes };
}

function stageValidator(prepare: Prepare, id: string, page: StagedValidator): StatementGroup<D1PreparedStatement> {
  const links = JSON.stringify(page.links.slice(0, MAX_LINKS_KEPT));
  return {
    statements: [
      prepare("INSERT OR REPLACE INTO staged_site_pages (generation, url, document_name, etag, last_modified, links) VALUES (?1, ?2, ?3, ?4, ?5, ?6)").bind(
        id,
        page.url,
        page.name,
        page.etag ?? null,
        page.lastModified ?? null,
        links,
      ),
    ],
    bytes: utf8Bytes(page.url + page.name + (page.etag ?? "") + (page.lastModified ?? "") + links) + 50,
  };
}

/** The run's index terms staged: each index page's earlier staging out (a retried step), then its pairs, many to a statement (jsonRows). */
function stageIndexTerms(prepare: Prepare, id: string, terms: readonly StagedIndexTerm[]): StatementGroup<D1PreparedStatement>[] {
  const sources = [...new Set(terms.map((term) => term.source))];
  const groups: StatementGroup<D1PreparedStatement>[] = sources.map((source) => ({
    statements: [prepare("DELETE FROM staged_index_terms WHERE generation = ?1 AND source = ?2").bind(id, source)],
    bytes: utf8Bytes(source) + 50,
  }));
  for (const part of jsonRows(terms.map((term) => [term.source, term.target, term.anchor, term.term]), ROWS_JSON_BYTES)) {
    groups.push({ statements: [prepare(STAGED_TERMS).bind(id, part.json)], bytes: part.bytes });
  }
  return groups;
}
