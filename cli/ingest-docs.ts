// Loads a folder of Markdown pages into D1 with the Worker's own parsing and storage code.
import { prepareSite, type PreparedSite, type Site } from "../src/documents/ingest/prepare-pages.ts";
import { syncDocuments, type WriteProgress } from "../src/documents/ingest/write-corpus.ts";
import type { SyncReport } from "../src/sync-report.ts";
import { PAGE_EXTENSION } from "../src/documents/names.ts";
import { listFolder, readFiles } from "./files.ts";
import { describeSync } from "./report.ts";
import { describeMarkupCounts } from "../src/markdown/site-markup.ts";
import { defaultCorpusConflict } from "../src/documents/default-corpus.ts";
import { listVersions, type VersionInfo } from "../src/documents/versions.ts";
import type { EmbeddingReport } from "../src/documents/ingest/embed-chunks.ts";
import type { SemanticSearch } from "../src/embeddings/semantic-search.ts";

/** Refuses a user's ingestion into the default corpus's base URI or data source (defaultCorpusConflict says why). */
export function refuseDefaultCorpusBase(site: Site): void {
  const conflict = defaultCorpusConflict(site);
  if (conflict) throw new Error(conflict);
}

/**
 * How a reader that fetches before it writes reaches the database: only
 * once its pages are read, with the hybrid retrieval to embed them with
 * (undefined when EMBEDDINGS=off).
 */
export type Connect = <T>(work: (db: D1Database, embeddings: SemanticSearch | undefined) => Promise<T>) => Promise<T>;

/** What a docs ingestion did, and the pages it skipped with the reason. */
export interface DocsIngestResult extends SyncReport {
  skipped: PreparedSite["skipped"];
  /** Per page (by path), the site markup that was stripped; pages with none are absent. */
  cleaned: { path: string; summary: string }[];
  /** For a versioned site: every version of its data source after the run. */
  versions?: VersionInfo[];
  /** Hybrid retrieval on: what the embedding step did. */
  embedding?: EmbeddingReport;
}

/** Progress lines only for runs long enough to make a person wonder. */
const PROGRESS_EVERY = 100;

/**
 * Ingests every page under `dir` for one site. All or nothing: if any page is
 * malformed, the errors are thrown together and nothing is written. Progress
 * lines say how many pages are prepared, then written, and at what rate.
 */
export async function ingestDocsFolder(
  db: D1Database,
  dir: string,
  site: Site,
  options: { prune: boolean; progress?: (line: string) => void; embeddings?: SemanticSearch },
): Promise<DocsIngestResult> {
  const { files: paths, skipped: notFiles } = await listFolder(dir, PAGE_EXTENSION);
  if (paths.length === 0) throw new Error(`${dir} has no .md, .mdx or .markdown files`);
  return ingestPages(db, await readFiles(dir, paths), site, { ...options, notPages: notFiles });
}

/**
 * Ingests pages however they were read (a folder, an archive, an llms.txt),
 * with the page handling and the all-or-nothing sync of a folder.
 * `refuseEmpty` makes a run whose pages all turn out empty fail, saying so,
 * instead of syncing nothing (which --prune would take as "remove all").
 */
export async function ingestPages(
  db: D1Database,
  pages: readonly { path: string; text: string }[],
  site: Site,
  options: {
    prune: boolean;
    /** With prune: a run under half the pages it would replace fails instead (a source's refresh). */
    refuseShrinking?: boolean;
    progress?: (line: string) => void;
    refuseEmpty?: string;
    /** Entries the reader passed over (links, FIFOs, …), reported beside the empty pages. */
    notPages?: PreparedSite["skipped"];
    /** Hybrid retrieval on: the new and changed chunks are embedded after the pages are written. */
    embeddings?: SemanticSearch;
  },
): Promise<DocsIngestResult> {
  const { progress } = options;
  const { documents, skipped: empty } = await prepareSite(pages, site, (prepared, total) => {
    if (progress && total > PROGRESS_EVERY && (prepared % PROGRESS_EVERY === 0 || prepared === total)) progress(`prepared ${prepared}/${total} pages`);
  });
  if (options.refuseEmpty && documents.length === 0) throw new Error(`${options.refuseEmpty}: all ${pages.length} pages are empty after their front matter and site markup; nothing was written`);
  const skipped = [...(options.notPages ?? []), ...empty];
  const cleaned = documents
    .map((doc) => ({ path: doc.path, summary: describeMarkupCounts(doc.markupRemoved) }))
    .filter((page) => page.summary !== "");
  progress?.(`writing ${documents.length} pages to D1 in batches within its limits`);
  const started = performance.now();
  const onProgress = progress && ((written: WriteProgress) => progress(describeWriteProgress(written, performance.now() - started)));
  const onEmbedProgress = progress && ((embedded: number, total: number) => progress(`embedded ${embedded}/${total} chunks`));
  const report = await syncDocuments(db, site, documents, { ...options, onProgress, onEmbedProgress });
  if (!site.version) return { ...report, skipped, cleaned };
  const versions = (await listVersions(db)).filter((version) => version.dataSource === site.dataSource);
  return { ...report, skipped, cleaned, versions };
}

/**
 * One progress line of the writing phase.
 *
 * @example describeWriteProgress({ pages: 1200, totalPages: 12500, bytes: 8.2e6, totalBytes: 80.3e6 }, 2000) // "wrote 1200/12500 pages, 8.2/80.3 MB, 4.1 MB/s"
 */
export function describeWriteProgress(progress: WriteProgress, elapsedMs: number): string {
  const mb = (bytes: number) => (bytes / 1e6).toFixed(1);
  const rate = elapsedMs > 0 ? (progress.bytes / 1e6 / (elapsedMs / 1000)).toFixed(1) : "0.0";
  return `wrote ${progress.pages}/${progress.totalPages} pages, ${mb(progress.bytes)}/${mb(progress.totalBytes)} MB, ${rate} MB/s`;
}

/** What an embedding step did, as the summary line says it. */
export function describeEmbedding(embedding: EmbeddingReport): string {
  const removed = embedding.removed > 0 ? `, ${embedding.removed} vectors removed` : "";
  return `${embedding.embedded} chunks embedded (${embedding.model})${removed}`;
}

/** One line a person can read: what changed. */
export function describeDocsIngest(baseUri: string, result: DocsIngestResult): string {
  const parts = [describeSync(result)];
  if (result.skipped.length > 0) parts.push(`${result.skipped.length} skipped`);
  if (result.cleaned.length > 0) parts.push(`site markup stripped from ${result.cleaned.length} pages`);
  if (result.embedding) parts.push(describeEmbedding(result.embedding));
  const line = `${baseUri}: ${parts.join(", ")}`;
  const own = result.versions?.find((version) => version.baseUri === baseUri);
  return own && result.versions ? `${line}\n${describeVersions(own, result.versions)}` : line;
}

/**
 * Which version a run wrote and which one searches see.
 *
 * @example "version v1 of docs.example.com (pages named under https://docs.example.com/v1); current: v2 (versions: v1, v2)"
 */
function describeVersions(own: VersionInfo, versions: readonly VersionInfo[]): string {
  const current = versions.find((version) => version.isCurrent);
  const state = own.isCurrent ? "current" : `not current; searches see ${current ? `"${current.label}"` : "no version"} unless a filter names this one`;
  return `version "${own.label}" of ${own.dataSource}, pages named under ${own.baseUri}: ${state} (versions: ${versions.map((version) => `"${version.label}"`).join(", ")})`;
}

/** One line for `remove-version`: what was removed and which version is current now. */
export function describeVersionRemoval({ version, report }: { version: VersionInfo; report: SyncReport }): string {
  return `version "${version.label}" of ${version.dataSource} (${version.baseUri}): ${report.removed.length} pages removed`;
}

/** Per page, what was cleaned or skipped and why: the lines after the summary. */
export function describeDocsPages(result: DocsIngestResult): string[] {
  return [
    ...result.cleaned.map((page) => `  ${page.path}: stripped ${page.summary}`),
    ...result.skipped.map((page) => `  ${page.path}: skipped, ${page.reason}`),
  ];
}
