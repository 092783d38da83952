/**
 * Writing an ingestion run into D1: the pages of one base URI made to match
 * a folder, in batches sized from D1's documented limits (src/d1/limits.ts),
 * so the same code loads 20 pages locally or 100,000 chunks into a deployed
 * database.
 */
import { planBatches, utf8Bytes, type StatementGroup } from "../../d1/batches.ts";
import { D1_LIMITS, rowsPerInsert } from "../../d1/limits.ts";
import { commonTermsMissing, refreshCommonTerms } from "../search/common-terms.ts";
import type { PreparedDocument, Site } from "./prepare-pages.ts";
import type { SyncReport } from "../../sync-report.ts";
import { findVersion, forgetVersionStatements, recordVersionStatements, refuseVersionConflicts, type VersionInfo } from "../versions.ts";
import type { SemanticSearch } from "../../embeddings/semantic-search.ts";
import { embedChunks, type EmbeddingReport } from "./embed-chunks.ts";

/** How far the writing has got, after each batch. */
export interface WriteProgress {
  pages: number;
  totalPages: number;
  bytes: number;
  totalBytes: number;
}

/**
 * Makes the pages ingested under the site's base URI match `documents`
 * (a bare base URI: an unversioned site): new pages are
 * added, changed pages replaced (new updateTime), unchanged pages left alone
 * (updateTime kept) and, with `prune`, pages this base URI ingested before
 * but no longer has are removed. Pages of other base URIs are never touched;
 * a page another base URI owns is refused before anything is written.
 *
 * A run that fits one D1 batch is all or nothing. A larger one is written in
 * batches of whole pages (D1_BATCH_LIMITS), removals last: if it fails part
 * way, every page is either its old or its new version, never half of one,
 * and running it again writes only what is still missing.
 *
 * A versioned site's version is recorded (and made current with
 * `version.current`) only after its pages are written, in one batch: until
 * then a new version's pages are not seen by default, so searches never see
 * half a version, and a base URI that holds another version is refused
 * before anything is written (src/documents/versions.ts).
 */
export async function syncDocuments(
  db: D1Database,
  target: string | Site,
  documents: readonly PreparedDocument[],
  options: SyncOptions,
): Promise<SyncReport & { embedding?: EmbeddingReport }> {
  const site = typeof target === "string" ? undefined : target;
  const baseUri = typeof target === "string" ? target : target.baseUri;
  const label = site?.version?.label ?? "";
  const stray = documents.find((doc) => (doc.version ?? "") !== label);
  // Readers pass the Site whose version prepared the pages; a bare base URI would silently drop the version's --current.
  if (stray) throw new Error(`${stray.name} was prepared as version "${stray.version}" but is written as "${label}"; pass the Site the pages were prepared with to syncDocuments`);
  await withRetries(() => refuseVersionConflicts(db, baseUri, site?.dataSource ?? documents[0]?.dataSource ?? "", label));
  const now = (options.now ?? new Date()).toISOString();
  const report = await syncPages(db, baseUri, documents, { ...options, now });
  if (site?.version) await withRetries(() => db.batch(recordVersionStatements(db, baseUri, site.dataSource, site.version as NonNullable<Site["version"]>, now)));
  return report;
}

/** How syncDocuments writes. */
export interface SyncOptions {
  prune: boolean;
  now?: Date;
  onProgress?: (progress: WriteProgress) => void;
  /** Pages the source still has but did not send again (a crawl's 304s): reported unchanged, never pruned. */
  keep?: readonly string[];
  /** Hybrid retrieval on: the written chunks are embedded too (embed-chunks.ts), and the report says how many. */
  embeddings?: SemanticSearch;
  onEmbedProgress?: (embedded: number, total: number) => void;
}

/**
 * Removes one version: it is forgotten first (from then on its pages are not
 * seen by default and its data source's current version is worked out
 * again), then exactly its pages are deleted, in batches within D1's limits.
 * Throws a plain Error naming the versions that exist when there is no such one.
 */
export async function removeVersion(db: D1Database, label: string, dataSource?: string): Promise<{ version: VersionInfo; report: SyncReport }> {
  const version = await withRetries(() => findVersion(db, label, dataSource));
  await withRetries(() => db.batch(forgetVersionStatements(db, version)));
  const report = await syncPages(db, version.baseUri, [], { prune: true, now: new Date().toISOString(), version: version.label });
  return { version, report };
}

/** The page writes of one base URI (`version`: only the pages of that version are pruned). */
async function syncPages(
  db: D1Database,
  baseUri: string,
  documents: readonly PreparedDocument[],
  options: Omit<SyncOptions, "now"> & { now: string; version?: string },
): Promise<SyncReport & { embedding?: EmbeddingReport }> {
  const updateTime = options.now;
  const { results: existing } = await withRetries(() =>
    (options.version === undefined
      ? db.prepare("SELECT name, content_hash FROM documents WHERE base_uri = ?1").bind(baseUri)
      : db.prepare("SELECT name, content_hash FROM documents WHERE base_uri = ?1 AND version = ?2").bind(baseUri, options.version)
    ).all<{ name: string; content_hash: string }>(),
  );
  const hashes = new Map(existing.map((row) => [row.name, row.content_hash]));
  await refuseForeignPages(db, baseUri, documents.filter((doc) => !hashes.has(doc.name)));

  const report: SyncReport = { added: [], updated: [], unchanged: [], removed: [] };
  const groups: (StatementGroup<D1PreparedStatement> & { pages: number })[] = [];
  for (const doc of documents) {
    const previous = hashes.get(doc.name);
    if (previous === doc.contentHash) {
      report.unchanged.push(doc.name);
      continue;
    }
    (previous === undefined ? report.added : report.updated).push(doc.name);
    groups.push({ ...writeDocument(db, baseUri, doc, updateTime), pages: 1 });
  }
  const sent = new Set(documents.map((doc) => doc.name));
  for (const name of options.keep ?? []) if (hashes.has(name) && !sent.has(name)) report.unchanged.push(name);
  if (options.prune) {
    const kept = new Set([...sent, ...(options.keep ?? [])]);
    for (const name of hashes.keys()) {
      if (kept.has(name)) continue;
      report.removed.push(name);
      groups.push({
        statements: [db.prepare("DELETE FROM chunks WHERE document_name = ?1").bind(name), db.prepare("DELETE FROM documents WHERE name = ?1").bind(name)],
        bytes: 2 * utf8Bytes(name),
        pages: 0,
      });
    }
  }
  await writeBatches(db, groups, options.onProgress);
  // Search counts common words from a copy (common-terms.ts): renewed whenever the index changed, and on a first run after migration 0005.
  if (groups.length > 0 || (await withRetries(() => commonTermsMissing(db)))) await withRetries(() => refreshCommonTerms(db));
  if (!options.embeddings) return report;
  return { ...report, embedding: await embedChunks(db, options.embeddings, baseUri, documents, options.onEmbedProgress) };
}

/** Runs the groups' statements in planned batches, reporting progress after each. */
async function writeBatches(
  db: D1Database,
  groups: readonly (StatementGroup<D1PreparedStatement> & { pages: number })[],
  onProgress: ((progress: WriteProgress) => void) | undefined,
): Promise<void> {
  const totalPages = groups.reduce((sum, group) => sum + group.pages, 0);
  const totalBytes = groups.reduce((sum, group) => sum + group.bytes, 0);
  // The plan keeps groups whole and in order, so walking the groups alongside tells what each batch finished.
  const progress: WriteProgress = { pages: 0, totalPages, bytes: 0, totalBytes };
  let group = 0;
  for (const batch of planBatches(groups)) {
    await withRetries(() => db.batch(batch));
    for (let statements = 0; statements < batch.length && group < groups.length; group += 1) {
      const done = groups[group] as (typeof groups)[number];
      statements += done.statements.length;
      progress.pages += done.pages;
      progress.bytes += done.bytes;
    }
    onProgress?.({ ...progress });
  }
}

/** How often a statement or batch is tried again after the connection to D1 failed. */
const BATCH_RETRIES = 2;

/**
 * Runs a read or a batch, again after a lost connection. A long ingestion
 * meets dropped connections: wrangler's bindings (local and remote) reuse an
 * idle connection that the other side may have closed while thousands of
 * pages were being prepared. Reads and batches of whole-page writes can be
 * repeated harmlessly; SQL errors are never retried.
 */
async function withRetries<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      const lostConnection = /fetch failed|other side closed|ECONNRESET|socket hang up|Network connection lost/i.test(`${String(error)} ${String((error as { cause?: unknown }).cause)}`);
      if (!lostConnection || attempt >= BATCH_RETRIES) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500 * (attempt + 1)));
    }
  }
}

/** Names per look-up: the base URI takes one parameter, the names the rest. */
const NAMES_PER_LOOKUP = D1_LIMITS.boundParameters - 1;

async function refuseForeignPages(db: D1Database, baseUri: string, candidates: readonly PreparedDocument[]): Promise<void> {
  for (let i = 0; i < candidates.length; i += NAMES_PER_LOOKUP) {
    const batch = candidates.slice(i, i + NAMES_PER_LOOKUP).map((doc) => doc.name);
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

/** Rows per multi-row chunk INSERT, so one statement stays under the parameter limit. */
const CHUNK_COLUMNS = 6;
const CHUNKS_PER_INSERT = rowsPerInsert(CHUNK_COLUMNS);

/** One page's statements (its old chunks out, its row and new chunks in) and the bytes they bind. */
function writeDocument(db: D1Database, baseUri: string, doc: PreparedDocument, updateTime: string): StatementGroup<D1PreparedStatement> {
  const statements = [
    db.prepare("DELETE FROM chunks WHERE document_name = ?1").bind(doc.name),
    db
      .prepare(
        `INSERT INTO documents (name, uri, base_uri, data_source, title, description, content, content_length_bytes, content_hash, update_time, version)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
         ON CONFLICT (name) DO UPDATE SET
           uri = excluded.uri, data_source = excluded.data_source, title = excluded.title, version = excluded.version,
           description = excluded.description, content = excluded.content,
           content_length_bytes = excluded.content_length_bytes, content_hash = excluded.content_hash,
           update_time = excluded.update_time`,
      )
      .bind(doc.name, doc.uri, baseUri, doc.dataSource, doc.title, doc.description, doc.content, doc.contentLengthBytes, doc.contentHash, updateTime, doc.version ?? ""),
  ];
  let bytes = doc.contentLengthBytes + utf8Bytes(doc.name + doc.uri + baseUri + doc.title + doc.description) + 100;
  for (let i = 0; i < doc.chunks.length; i += CHUNKS_PER_INSERT) {
    const rows = doc.chunks.slice(i, i + CHUNKS_PER_INSERT);
    const values = rows.map((_, j) => `(${Array.from({ length: CHUNK_COLUMNS }, (_, k) => `?${j * CHUNK_COLUMNS + k + 1}`).join(", ")})`);
    statements.push(
      db
        .prepare(`INSERT INTO chunks (document_name, chunk_id, position, title, heading, content) VALUES ${values.join(", ")}`)
        .bind(...rows.flatMap((chunk) => [doc.name, chunk.id, chunk.position, doc.title, chunk.heading, chunk.content])),
    );
    bytes += rows.reduce((sum, chunk) => sum + utf8Bytes(doc.name + chunk.id + doc.title + chunk.heading + chunk.content) + 8, 0);
  }
  return { statements, bytes };
}
