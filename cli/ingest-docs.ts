// Loads a folder of Markdown pages into D1 with the Worker's own parsing and storage code.
import { prepareSite, type PreparedSite, type Site } from "../src/documents/ingest/prepare-pages.ts";
import { syncDocuments, type WriteProgress } from "../src/documents/ingest/write-corpus.ts";
import type { SyncReport } from "../src/sync-report.ts";
import { PAGE_EXTENSION } from "../src/documents/names.ts";
import { listFiles, readFiles } from "./files.ts";
import { describeSync } from "./report.ts";
import { describeMarkupCounts } from "../src/markdown/site-markup.ts";
import { DEFAULT_CORPUS } from "../src/documents/default-corpus.ts";

/**
 * Refuses a user's base URI inside the default corpus's: `npm start` prunes
 * that base URI to match corpus/docs, so pages put there would be deleted.
 */
export function refuseDefaultCorpusBase(site: Site): void {
  if (site.baseUri === DEFAULT_CORPUS.baseUri || site.baseUri.startsWith(`${DEFAULT_CORPUS.baseUri}/`)) {
    throw new Error(`--base-uri ${site.baseUri} is reserved for Almanac's own documentation, which npm start loads; use your documentation's own URL`);
  }
}

/** What a docs ingestion did, and the pages it skipped with the reason. */
export interface DocsIngestResult extends SyncReport {
  skipped: PreparedSite["skipped"];
  /** Per page (by path), the site markup that was stripped; pages with none are absent. */
  cleaned: { path: string; summary: string }[];
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
  options: { prune: boolean; progress?: (line: string) => void },
): Promise<DocsIngestResult> {
  const paths = await listFiles(dir, PAGE_EXTENSION);
  if (paths.length === 0) throw new Error(`${dir} has no .md, .mdx or .markdown files`);
  const { progress } = options;
  const { documents, skipped } = await prepareSite(await readFiles(dir, paths), site, (prepared, total) => {
    if (progress && total > PROGRESS_EVERY && (prepared % PROGRESS_EVERY === 0 || prepared === total)) progress(`prepared ${prepared}/${total} pages`);
  });
  const cleaned = documents
    .map((doc) => ({ path: doc.path, summary: describeMarkupCounts(doc.markupRemoved) }))
    .filter((page) => page.summary !== "");
  progress?.(`writing ${documents.length} pages to D1 in batches within its limits`);
  const started = performance.now();
  const onProgress = progress && ((written: WriteProgress) => progress(describeWriteProgress(written, performance.now() - started)));
  return { ...(await syncDocuments(db, site.baseUri, documents, { ...options, onProgress })), skipped, cleaned };
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

/** One line a person can read: what changed. */
export function describeDocsIngest(baseUri: string, result: DocsIngestResult): string {
  const parts = [describeSync(result)];
  if (result.skipped.length > 0) parts.push(`${result.skipped.length} skipped (empty)`);
  if (result.cleaned.length > 0) parts.push(`site markup stripped from ${result.cleaned.length} pages`);
  return `${baseUri}: ${parts.join(", ")}`;
}

/** Per page, what was cleaned or skipped and why: the lines after the summary. */
export function describeDocsPages(result: DocsIngestResult): string[] {
  return [
    ...result.cleaned.map((page) => `  ${page.path}: stripped ${page.summary}`),
    ...result.skipped.map((page) => `  ${page.path}: skipped, ${page.reason}`),
  ];
}
