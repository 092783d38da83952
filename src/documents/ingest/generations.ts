/**
 * A run's pages become visible all at once (issue 20). A run — `npm run
 * ingest`, or a source's refresh Workflow over many steps — stages its pages
 * in tables no reader looks at (migration 0011), then publishes them into
 * documents and chunks in one D1 batch, which D1 runs as one transaction:
 * search, get, answers, resources and REST see the base URI's previous pages
 * or all of the run's, never a mix. A run that fails publishes nothing and
 * its staged rows are deleted; a run that is killed is abandoned by the next
 * run of its base URI (the newest run wins) or once it has been silent for
 * STALE_RUN_MS, and its rows are swept then.
 */
import { D1_BATCH_LIMITS, planBatches, utf8Bytes, type StatementGroup } from "../../d1/batches.ts";
import { D1_LIMITS, rowsPerInsert } from "../../d1/limits.ts";
import type { SyncReport } from "../../sync-report.ts";
import { commonTermsMissing, refreshCommonTerms } from "../search/common-terms.ts";
import { recordVersionStatements } from "../versions.ts";
import type { PreparedDocument, Site } from "./prepare-pages.ts";

/** A run that wrote nothing for this long is taken as dead: a live run stages a batch every few seconds, a Workflow step retries within minutes. */
export const STALE_RUN_MS = 60 * 60 * 1000;

/** Staged chunks copied by one publishing statement: a few seconds of FTS indexing at most, far inside D1's 30 s per query. */
const CHUNKS_PER_PUBLISH_STATEMENT = 5000;

/** The run's generation is no longer the one being written (a newer run of its base URI started, or it was silent too long). */
export class AbandonedRunError extends Error {
  constructor(id: string) {
    super(
      `run ${id} was abandoned before it published: a newer run of the same base URI started, or it wrote nothing for ${STALE_RUN_MS / 60_000} minutes; ` +
        "nothing of it was published and the previous pages are still served; run it again",
    );
    this.name = "AbandonedRunError";
  }
}

/** A page's HTTP validators, published with it (site crawls only). */
export interface StagedValidator {
  url: string;
  name: string;
  etag?: string;
  lastModified?: string;
  links: readonly string[];
}

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

/** The in-scope links kept per page for the next crawl (a 304 has no body to read them from). */
const MAX_LINKS_KEPT = 5000;

/**
 * The first statement of every batch a run writes: it fails (a NOT NULL
 * violation, which rolls the whole batch back) unless generation ?1 is still
 * being written, so an abandoned run can neither stage nor publish anything.
 */
const STILL_WRITING_GUARD = `INSERT INTO generations (id, base_uri, state, started_time, touched_time)
  SELECT NULL, NULL, 'writing', '', '' WHERE NOT EXISTS (SELECT 1 FROM generations WHERE id = ?1 AND state = 'writing')`;

function isGuardFailure(error: unknown): boolean {
  return /NOT NULL constraint failed: generations\./.test(`${String(error)} ${String((error as { cause?: unknown })?.cause)}`);
}

/** Runs a run's batch behind the guard; an abandoned run gets AbandonedRunError, not a constraint message. */
async function runGuarded(db: D1Database, id: string, statements: D1PreparedStatement[]): Promise<D1Result[]> {
  try {
    return await db.batch([db.prepare(STILL_WRITING_GUARD).bind(id), ...statements]);
  } catch (error) {
    if (isGuardFailure(error)) throw new AbandonedRunError(id);
    throw error;
  }
}

/**
 * Starts (or, for a retried Workflow step, continues) generation `id` of
 * `baseUri`. Any other run still writing the same base URI is abandoned, and
 * so is any run silent for STALE_RUN_MS; the staged rows of every run that
 * is not being written are deleted.
 */
export async function beginGeneration(db: D1Database, id: string, baseUri: string, now: Date = new Date()): Promise<void> {
  const time = now.toISOString();
  const stale = new Date(now.getTime() - STALE_RUN_MS).toISOString();
  await db.batch([
    db
      .prepare("UPDATE generations SET state = 'abandoned' WHERE state = 'writing' AND id != ?1 AND (base_uri = ?2 OR touched_time < ?3)")
      .bind(id, baseUri, stale),
    db
      .prepare("INSERT INTO generations (id, base_uri, state, started_time, touched_time) VALUES (?1, ?2, 'writing', ?3, ?3) ON CONFLICT (id) DO UPDATE SET touched_time = excluded.touched_time")
      .bind(id, baseUri, time),
  ]);
  await sweepGenerations(db, now);
}

/**
 * Deletes the staged rows of every run that is not being written (published,
 * abandoned, or unknown), and abandons runs silent for STALE_RUN_MS. The
 * cron runs it too, so a killed run's rows do not wait for the next run.
 */
export async function sweepGenerations(db: D1Database, now: Date = new Date()): Promise<void> {
  const stale = new Date(now.getTime() - STALE_RUN_MS).toISOString();
  const notWriting = "generation NOT IN (SELECT id FROM generations WHERE state = 'writing')";
  await db.batch([
    db.prepare("UPDATE generations SET state = 'abandoned' WHERE state = 'writing' AND touched_time < ?1").bind(stale),
    db.prepare(`DELETE FROM staged_chunks WHERE ${notWriting}`),
    db.prepare(`DELETE FROM staged_documents WHERE ${notWriting}`),
    db.prepare(`DELETE FROM staged_pages WHERE ${notWriting}`),
    db.prepare(`DELETE FROM staged_site_pages WHERE ${notWriting}`),
    db.prepare(`DELETE FROM staged_index_terms WHERE ${notWriting}`),
    // Kept a while: a publishing step retried after its batch landed must find its run published, not unknown.
    db.prepare("DELETE FROM generations WHERE state != 'writing' AND touched_time < ?1").bind(stale),
  ]);
}

/** Ends a run that failed: nothing of it is published, and its rows go at once. */
export async function abandonGeneration(db: D1Database, id: string): Promise<void> {
  await db.prepare("UPDATE generations SET state = 'abandoned' WHERE id = ?1 AND state = 'writing'").bind(id).run();
  await sweepGenerations(db);
}

/** How far the staging has got, after each batch. */
export interface StageProgress {
  pages: number;
  totalPages: number;
  bytes: number;
  totalBytes: number;
}

/** Names per look-up: the base URI takes one parameter, the names the rest. */
const NAMES_PER_LOOKUP = D1_LIMITS.boundParameters - 1;

/** One statement is the guard in every staged batch. */
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
  const manifest = (name: string, outcome: "added" | "updated" | "unchanged") =>
    db
      .prepare("INSERT INTO staged_pages (generation, name, outcome) VALUES (?1, ?2, ?3) ON CONFLICT (generation, name) DO UPDATE SET outcome = excluded.outcome")
      .bind(id, name, outcome);
  for (const doc of documents) {
    const previous = live.get(doc.name);
    if (previous === doc.contentHash) {
      report.unchanged.push(doc.name);
      groups.push({ statements: [manifest(doc.name, "unchanged")], bytes: utf8Bytes(doc.name), pages: 1 });
      continue;
    }
    const outcome = previous === undefined ? "added" : "updated";
    report[outcome].push(doc.name);
    const page = stageDocument(db, id, baseUri, doc);
    groups.push({ statements: [...page.statements, manifest(doc.name, outcome)], bytes: page.bytes, pages: 1 });
  }
  for (const name of kept) {
    if (!live.has(name)) continue;
    report.unchanged.push(name);
    groups.push({ statements: [manifest(name, "unchanged")], bytes: utf8Bytes(name), pages: 0 });
  }
  for (const validator of options.validators ?? []) groups.push({ ...stageValidator(db, id, validator), pages: 0 });
  groups.push(...stageIndexTerms(db, id, options.indexTerms ?? []).map((group) => ({ ...group, pages: 0 })));

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
 * A mirroring run (a source's refresh) whose manifest holds under this share
 * of the pages it would replace is taken as a broken origin (an emptied
 * sitemap, a wrong branch, a login wall), not as a site that lost half its
 * pages: it fails and publishes nothing.
 */
const SHRINK_SHARE = 0.5;

/** The run read too little to prune by (SHRINK_SHARE); nothing was published. */
class ShrinkRefusedError extends Error {
  constructor(read: number, before: number) {
    super(
      `the run read ${read} pages where the source had ${before}, under ${SHRINK_SHARE * 100}%: taken as a broken origin, not as a source that lost ` +
        `${before - read} pages; nothing was published and the previous pages are still served. If the origin really lost them, ` +
        "run npm run sources -- refresh <name> --allow-shrink once",
    );
    this.name = "ShrinkRefusedError";
  }
}

/** What publishing does beyond the staged pages. */
interface PublishOptions {
  baseUri: string;
  /** Remove the base URI's pages that are not in the run's manifest. */
  prune: boolean;
  /** With prune: refuse to publish (ShrinkRefusedError) a manifest under SHRINK_SHARE of the pages the base URI has now. */
  refuseShrinking?: boolean;
  /** Pages removed by name, whatever the manifest (a push's deleted files): an incremental run names what it removes. */
  remove?: readonly string[];
  /** With prune: only pages of this version label are candidates for removal (remove-version). */
  pruneVersion?: string;
  /** The Site the pages were prepared for: a versioned one's version is recorded (made current with `--current`) in the same transaction. */
  site?: Site;
  /** Other statements that land in the same transaction (a version forgotten). */
  alongside?: D1PreparedStatement[];
  now?: Date;
}

/**
 * Publishes the run in one transaction: changed pages replaced, new ones
 * added, with `prune` the pages not in the manifest removed, the site's
 * validators saved, and the run marked published. Changed pages get `now`
 * as their updateTime (the time their content last changed); unchanged
 * pages keep theirs. Throws AbandonedRunError when the run was abandoned.
 */
export async function publishGeneration(db: D1Database, id: string, options: PublishOptions): Promise<SyncReport> {
  const now = (options.now ?? new Date()).toISOString();
  const version = options.pruneVersion ?? null;
  const { results: pages } = await withRetries(() =>
    db.prepare("SELECT name, outcome FROM staged_pages WHERE generation = ?1 ORDER BY name").bind(id).all<{ name: string; outcome: keyof SyncReport }>(),
  );
  const report: SyncReport = { added: [], updated: [], unchanged: [], removed: [] };
  for (const page of pages) report[page.outcome].push(page.name);
  const notInRun = "base_uri = ?2 AND (?3 IS NULL OR version = ?3) AND name NOT IN (SELECT name FROM staged_pages WHERE generation = ?1)";
  if (options.prune) {
    const { results } = await withRetries(() =>
      db.prepare(`SELECT name FROM documents WHERE ${notInRun} ORDER BY name`).bind(id, options.baseUri, version).all<{ name: string }>(),
    );
    report.removed = results.map((row) => row.name);
    // The pages the base URI has now: the run's unchanged and updated ones, and those it would remove.
    const before = report.unchanged.length + report.updated.length + report.removed.length;
    if (options.refuseShrinking && pages.length < SHRINK_SHARE * before) throw new ShrinkRefusedError(pages.length, before);
  }
  const staged = new Set(pages.map((page) => page.name));
  const named = (options.remove ?? []).filter((name) => !staged.has(name));
  if (named.length > 0) {
    const live = await liveHashes(db, options.baseUri, named);
    report.removed = [...new Set([...report.removed, ...named.filter((name) => live.has(name))])].sort();
  }
  const range = await withRetries(() =>
    db.prepare("SELECT MIN(rowid) AS first, MAX(rowid) AS last FROM staged_chunks WHERE generation = ?1").bind(id).first<{ first: number | null; last: number | null }>(),
  );

  const applyStatement = applyIndexTerms(db, options.baseUri);
  const statements: D1PreparedStatement[] = [
    db.prepare("DELETE FROM chunks WHERE document_name IN (SELECT name FROM staged_documents WHERE generation = ?1)").bind(id),
  ];
  if (options.prune && report.removed.length > 0) {
    statements.push(
      db.prepare(`DELETE FROM chunks WHERE document_name IN (SELECT name FROM documents WHERE ${notInRun})`).bind(id, options.baseUri, version),
      db.prepare(`DELETE FROM documents WHERE ${notInRun}`).bind(id, options.baseUri, version),
    );
  }
  for (let i = 0; i < named.length; i += NAMES_PER_LOOKUP) {
    const batch = named.slice(i, i + NAMES_PER_LOOKUP);
    const placeholders = batch.map((_, j) => `?${j + 2}`).join(", ");
    statements.push(
      db.prepare(`DELETE FROM chunks WHERE document_name IN (SELECT name FROM documents WHERE base_uri = ?1 AND name IN (${placeholders}))`).bind(options.baseUri, ...batch),
      db.prepare(`DELETE FROM documents WHERE base_uri = ?1 AND name IN (${placeholders})`).bind(options.baseUri, ...batch),
    );
  }
  statements.push(
    db
      .prepare(
        `INSERT INTO documents (name, uri, base_uri, data_source, title, description, content, content_length_bytes, content_hash, update_time, version)
         SELECT name, uri, base_uri, data_source, title, description, content, content_length_bytes, content_hash, ?2, version
         FROM staged_documents WHERE generation = ?1
         ON CONFLICT (name) DO UPDATE SET
           uri = excluded.uri, data_source = excluded.data_source, title = excluded.title, version = excluded.version,
           description = excluded.description, content = excluded.content,
           content_length_bytes = excluded.content_length_bytes, content_hash = excluded.content_hash,
           update_time = excluded.update_time`,
      )
      .bind(id, now),
  );
  if (range?.first != null && range.last != null) {
    for (let first = range.first; first <= range.last; first += CHUNKS_PER_PUBLISH_STATEMENT) {
      statements.push(
        db
          .prepare(
            `INSERT INTO chunks (document_name, chunk_id, position, title, heading, content)
             SELECT document_name, chunk_id, position, title, heading, content FROM staged_chunks
             WHERE generation = ?1 AND rowid BETWEEN ?2 AND ?3 ORDER BY rowid`,
          )
          .bind(id, first, Math.min(first + CHUNKS_PER_PUBLISH_STATEMENT - 1, range.last)),
      );
    }
  }
  statements.push(
    db
      .prepare(
        `INSERT INTO site_pages (url, base_uri, document_name, etag, last_modified, links)
         SELECT url, ?2, document_name, etag, last_modified, links FROM staged_site_pages WHERE generation = ?1
         ON CONFLICT (url) DO UPDATE SET base_uri = excluded.base_uri, document_name = excluded.document_name,
           etag = excluded.etag, last_modified = excluded.last_modified, links = excluded.links`,
      )
      .bind(id, options.baseUri),
    // Validators of pages no longer stored would make the next crawl skip a page it must read.
    db
      .prepare("DELETE FROM site_pages WHERE base_uri = ?1 AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.name = site_pages.document_name)")
      .bind(options.baseUri),
    ...indexTermStatements(db, id, options.baseUri, options.prune),
    applyStatement,
    ...(options.site?.version ? recordVersionStatements(db, options.baseUri, options.site.dataSource, options.site.version, now) : []),
    ...(options.alongside ?? []),
    db
      .prepare("UPDATE generations SET state = 'published', touched_time = ?2, added = ?3, updated = ?4, unchanged = ?5, removed = ?6 WHERE id = ?1")
      .bind(id, now, report.added.length, report.updated.length, report.unchanged.length, report.removed.length),
  );
  if (statements.length + 1 > D1_LIMITS.queriesPerInvocation) {
    // One batch is one transaction; past this size a run cannot be published whole within D1's per-invocation query limit.
    throw new Error(
      `this run changes more chunks than one publishing transaction copies (about ${(D1_LIMITS.queriesPerInvocation - 10) * CHUNKS_PER_PUBLISH_STATEMENT}); ` +
        "nothing was published; ingest the site in parts (--include) or under several base URIs",
    );
  }
  let termsChanged = false;
  try {
    const results = await withRetries(() => runGuarded(db, id, statements));
    // The guard is the batch's first statement.
    termsChanged = (results[statements.indexOf(applyStatement) + 1]?.meta.changes ?? 0) > 0;
  } catch (error) {
    // A retry of a batch that did land (or of a Workflow step whose batch landed) meets a published run: done, not abandoned.
    if (!(error instanceof AbandonedRunError) || (await generationState(db, id)) !== "published") throw error;
  }
  // The run's rows are garbage now; a failure here leaves them to the next sweep.
  await sweepGenerations(db).catch(() => {});
  const changed = termsChanged || report.added.length + report.updated.length + report.removed.length > 0;
  // Search counts common words from a copy (common-terms.ts): renewed whenever the index changed, and on a first run after migration 0005.
  if (changed || (await withRetries(() => commonTermsMissing(db)))) await withRetries(() => refreshCommonTerms(db));
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

/** Where run `id` stands, or null when it is unknown (never begun, or swept long ago). */
export async function generationState(db: D1Database, id: string): Promise<"writing" | "published" | "abandoned" | null> {
  return (await generationOf(db, id))?.state ?? null;
}

/** Run `id`'s state and the time of its last write (epoch ms), or null when it is unknown. */
export async function generationOf(db: D1Database, id: string): Promise<{ state: "writing" | "published" | "abandoned"; touchedTime: number } | null> {
  const row = await db
    .prepare("SELECT state, touched_time FROM generations WHERE id = ?1")
    .bind(id)
    .first<{ state: "writing" | "published" | "abandoned"; touched_time: string }>();
  return row ? { state: row.state, touchedTime: Date.parse(row.touched_time) } : null;
}

/** What publishing run `id` did, read back from its row (for STALE_RUN_MS after it published); null when it did not publish. */
export async function publishedCounts(db: D1Database, id: string): Promise<{ added: number; updated: number; unchanged: number; removed: number } | null> {
  return db
    .prepare("SELECT added, updated, unchanged, removed FROM generations WHERE id = ?1 AND state = 'published'")
    .bind(id)
    .first<{ added: number; updated: number; unchanged: number; removed: number }>();
}

/** The content hashes readers see now for these names of the base URI. */
async function liveHashes(db: D1Database, baseUri: string, names: readonly string[]): Promise<Map<string, string>> {
  const hashes = new Map<string, string>();
  for (let i = 0; i < names.length; i += NAMES_PER_LOOKUP) {
    const batch = names.slice(i, i + NAMES_PER_LOOKUP);
    const placeholders = batch.map((_, j) => `?${j + 2}`).join(", ");
    const { results } = await withRetries(() =>
      db
        .prepare(`SELECT name, content_hash FROM documents WHERE base_uri = ?1 AND name IN (${placeholders})`)
        .bind(baseUri, ...batch)
        .all<{ name: string; content_hash: string }>(),
    );
    for (const row of results) hashes.set(row.name, row.content_hash);
  }
  return hashes;
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

/** Rows per multi-row staged chunk INSERT, so one statement stays under the parameter limit. */
const CHUNK_COLUMNS = 7;
const CHUNKS_PER_INSERT = rowsPerInsert(CHUNK_COLUMNS);

/** One page's staging statements (any earlier staging of it out, its row and chunks in) and the bytes they bind. */
function stageDocument(db: D1Database, id: string, baseUri: string, doc: PreparedDocument): StatementGroup<D1PreparedStatement> {
  const statements = [
    db.prepare("DELETE FROM staged_chunks WHERE generation = ?1 AND document_name = ?2").bind(id, doc.name),
    db
      .prepare(
        `INSERT OR REPLACE INTO staged_documents (generation, name, uri, base_uri, data_source, title, description, content, content_length_bytes, content_hash, version)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)`,
      )
      .bind(id, doc.name, doc.uri, baseUri, doc.dataSource, doc.title, doc.description, doc.content, doc.contentLengthBytes, doc.contentHash, doc.version ?? ""),
  ];
  let bytes = doc.contentLengthBytes + utf8Bytes(doc.name + doc.uri + baseUri + doc.title + doc.description) + 100;
  for (let i = 0; i < doc.chunks.length; i += CHUNKS_PER_INSERT) {
    const rows = doc.chunks.slice(i, i + CHUNKS_PER_INSERT);
    const values = rows.map((_, j) => `(${Array.from({ length: CHUNK_COLUMNS }, (_, k) => `?${j * CHUNK_COLUMNS + k + 1}`).join(", ")})`);
    statements.push(
      db
        .prepare(`INSERT INTO staged_chunks (generation, document_name, chunk_id, position, title, heading, content) VALUES ${values.join(", ")}`)
        .bind(...rows.flatMap((chunk) => [id, doc.name, chunk.id, chunk.position, doc.title, chunk.heading, chunk.content])),
    );
    bytes += rows.reduce((sum, chunk) => sum + utf8Bytes(doc.name + chunk.id + doc.title + chunk.heading + chunk.content) + 8, 0);
  }
  return { statements, bytes };
}

function stageValidator(db: D1Database, id: string, page: StagedValidator): StatementGroup<D1PreparedStatement> {
  const links = JSON.stringify(page.links.slice(0, MAX_LINKS_KEPT));
  return {
    statements: [
      db
        .prepare(
          `INSERT OR REPLACE INTO staged_site_pages (generation, url, document_name, etag, last_modified, links) VALUES (?1, ?2, ?3, ?4, ?5, ?6)`,
        )
        .bind(id, page.url, page.name, page.etag ?? null, page.lastModified ?? null, links),
    ],
    bytes: utf8Bytes(page.url + page.name + (page.etag ?? "") + (page.lastModified ?? "") + links) + 50,
  };
}

const TERM_COLUMNS = 5;
const TERMS_PER_INSERT = rowsPerInsert(TERM_COLUMNS);

/** The run's index terms staged: each index page's earlier staging out (a retried step), then its pairs, a statement per TERMS_PER_INSERT. */
function stageIndexTerms(db: D1Database, id: string, terms: readonly StagedIndexTerm[]): StatementGroup<D1PreparedStatement>[] {
  const sources = [...new Set(terms.map((term) => term.source))];
  const groups: StatementGroup<D1PreparedStatement>[] = sources.map((source) => ({
    statements: [db.prepare("DELETE FROM staged_index_terms WHERE generation = ?1 AND source = ?2").bind(id, source)],
    bytes: utf8Bytes(source) + 50,
  }));
  for (let i = 0; i < terms.length; i += TERMS_PER_INSERT) {
    const rows = terms.slice(i, i + TERMS_PER_INSERT);
    const values = rows.map((_, j) => `(${Array.from({ length: TERM_COLUMNS }, (_, k) => `?${j * TERM_COLUMNS + k + 1}`).join(", ")})`);
    groups.push({
      statements: [
        db
          .prepare(`INSERT INTO staged_index_terms (generation, source, target, anchor, term) VALUES ${values.join(", ")}`)
          .bind(...rows.flatMap((row) => [id, row.source, row.target, row.anchor, row.term])),
      ],
      bytes: rows.reduce((sum, row) => sum + utf8Bytes(row.source + row.target + row.anchor + row.term) + 20, 0),
    });
  }
  return groups;
}

/**
 * Publishing's index statements: the pairs of every index page the run read
 * replace that page's earlier ones; a pruning run (which read the whole
 * site) drops the pairs of index pages it no longer found.
 */
function indexTermStatements(db: D1Database, id: string, baseUri: string, prune: boolean): D1PreparedStatement[] {
  return [
    db
      .prepare(
        `DELETE FROM index_terms WHERE base_uri = ?2
         AND (?3 OR source IN (SELECT source FROM staged_index_terms WHERE generation = ?1))`,
      )
      .bind(id, baseUri, prune ? 1 : 0),
    db
      .prepare("INSERT INTO index_terms (base_uri, source, target, anchor, term) SELECT ?2, source, target, anchor, term FROM staged_index_terms WHERE generation = ?1")
      .bind(id, baseUri),
  ];
}

/**
 * A page given more terms than this whose anchors name none of its sections
 * is a list of things (SQLite's compile options, its pragmas: 395 and 153
 * terms): its own sections already say them, and 395 terms on its lead
 * chunk made it match "max size of a database file". A page given a few
 * says what it is about ("UPSERT", "ON CONFLICT" for INSERT).
 */
const MAX_LEAD_TERMS = 10;

/**
 * Writes `chunks.terms` for the base URI's pages from its index terms: a term
 * goes to the chunk its anchor names, else to its page's lead chunk (an
 * anchor on a paragraph, or none; at most MAX_LEAD_TERMS a page), once
 * however many index pages give it. Only chunks whose terms change are
 * written, so the FTS index is touched for those alone.
 */
function applyIndexTerms(db: D1Database, baseUri: string): D1PreparedStatement {
  return db
    .prepare(
      `WITH resolved AS (
         SELECT t.target, t.term, exact.rowid AS exact_chunk, lead.rowid AS lead_chunk
         FROM index_terms AS t
         JOIN chunks AS lead ON lead.document_name = t.target AND lead.position = 0
         LEFT JOIN chunks AS exact ON exact.document_name = t.target AND exact.chunk_id = t.anchor AND t.anchor != ''
         WHERE t.base_uri = ?1),
       unplaced AS (SELECT target, count(DISTINCT term) AS n FROM resolved WHERE exact_chunk IS NULL GROUP BY target),
       placed AS (
         SELECT DISTINCT coalesce(r.exact_chunk, r.lead_chunk) AS chunk, r.term AS term
         FROM resolved AS r LEFT JOIN unplaced AS u ON u.target = r.target
         WHERE r.exact_chunk IS NOT NULL OR u.n <= ${MAX_LEAD_TERMS}),
       terms_of AS (SELECT chunk, group_concat(term, ' ; ') AS terms FROM (SELECT chunk, term FROM placed ORDER BY chunk, term) GROUP BY chunk),
       wanted AS (
         SELECT c.rowid AS chunk, coalesce(terms_of.terms, '') AS terms
         FROM documents AS d JOIN chunks AS c ON c.document_name = d.name LEFT JOIN terms_of ON terms_of.chunk = c.rowid
         WHERE d.base_uri = ?1)
       UPDATE chunks SET terms = wanted.terms FROM wanted WHERE chunks.rowid = wanted.chunk AND chunks.terms != wanted.terms`,
    )
    .bind(baseUri);
}

/** How often a statement or batch is tried again after the connection to D1 failed. */
const BATCH_RETRIES = 2;

/**
 * Runs a read or a batch, again after a lost connection. A long ingestion
 * meets dropped connections: wrangler's bindings (local and remote) reuse an
 * idle connection that the other side may have closed while thousands of
 * pages were being prepared. Reads and staging batches can be repeated
 * harmlessly, and so can publishing (a second try of a batch that did land
 * meets the guard and says the run is no longer being written); SQL errors
 * are never retried.
 */
export async function withRetries<T>(work: () => Promise<T>): Promise<T> {
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
