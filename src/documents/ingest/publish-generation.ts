/**
 * A run published (generations.ts): its staged pages replace the base URI's
 * in one D1 batch, which D1 runs as one transaction, so readers see the
 * previous pages or all of the run's, never a mix.
 */
import { D1_LIMITS } from "../../d1/limits.ts";
import type { SyncReport } from "../../sync-report.ts";
import { commonTermsMissing, refreshCommonTerms } from "../search/common-terms.ts";
import { recordVersionStatements } from "../versions.ts";
import { AbandonedRunError, generationState, liveHashes, NAMES_PER_LOOKUP, runGuarded, sweepGenerations, withRetries } from "./generations.ts";
import type { Site } from "./prepare-pages.ts";

/** Staged chunks copied by one publishing statement: a few seconds of FTS indexing at most, far inside D1's 30 s per query. */
const CHUNKS_PER_PUBLISH_STATEMENT = 5000;

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
