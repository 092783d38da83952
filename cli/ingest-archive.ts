// `npm run ingest -- archive`: the Markdown pages of a repository snapshot (.tar.gz or .tar, a URL or a file),
// read by the Worker's own archive reader and ingested exactly as a folder is.
import { openAsBlob } from "node:fs";
import { stat } from "node:fs/promises";
import type { Site } from "../src/documents/ingest/prepare-pages.ts";
import { type ArchivePages, DEFAULT_ARCHIVE_LIMITS, downloadArchive, readArchivePages } from "../src/readers/archive/archive.ts";
import { type Connect, type DocsIngestResult, ingestPages } from "./ingest-docs.ts";

/** What an archive ingestion read, and what it did with the pages. */
export interface ArchiveIngestResult extends DocsIngestResult {
  archive: ArchivePages;
  /** Seconds spent reading the archive (download and expansion), before any writing. */
  seconds: number;
}

/** The archive's bytes: downloaded when `source` is an http(s) URL, else read from the file. */
async function openArchive(source: string): Promise<ReadableStream<Uint8Array>> {
  if (/^https?:\/\//i.test(source)) return downloadArchive(source);
  const file = await stat(source).catch(() => undefined);
  if (!file?.isFile()) throw new Error(`${source} is neither an http(s) URL nor a file; give a .tar.gz of the repository, e.g. https://github.com/<owner>/<repo>/archive/refs/heads/main.tar.gz`);
  return (await openAsBlob(source)).stream() as ReadableStream<Uint8Array>;
}

/**
 * Reads the archive at `source` (all of it, before anything is written: a
 * refused archive leaves the corpus as it was), then ingests its pages
 * under `site`. Throws saying why when the archive holds no page.
 */
export async function ingestArchive(
  source: string,
  folder: string | undefined,
  connect: Connect,
  site: Site,
  options: { prune: boolean; refuseShrinking?: boolean; progress?: (line: string) => void },
): Promise<ArchiveIngestResult> {
  const started = performance.now();
  const archive = await readArchivePages(await openArchive(source), { path: folder, progress: options.progress });
  const readSeconds = (performance.now() - started) / 1000;
  if (archive.pages.length === 0) {
    const where = folder ? ` under --path ${folder}` : "";
    const top = archive.topFolder ? ` (top folder ${archive.topFolder}/ stripped)` : "";
    throw new Error(`${source} has no .md, .mdx or .markdown files${where}${top} among its ${archive.entries} entries; nothing was written`);
  }
  const result = await connect((db, embeddings) => ingestPages(db, archive.pages, site, { ...options, refuseEmpty: source, embeddings }));
  return { ...result, archive, seconds: readSeconds };
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const cap = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MiB`;

/** What was read from the archive, and the caps it ran under: the line after the summary. */
export function describeArchiveRead(result: ArchiveIngestResult): string[] {
  const { archive } = result;
  const top = archive.topFolder ? `, top folder ${archive.topFolder}/ stripped` : "";
  return [
    `  read ${archive.pages.length} pages from ${archive.entries} archive entries (${mib(archive.expandedBytes)} expanded${top}) in ${result.seconds.toFixed(1)} s;` +
      ` caps: ${cap(DEFAULT_ARCHIVE_LIMITS.maxExpandedBytes)} expanded, ${cap(DEFAULT_ARCHIVE_LIMITS.maxPageBytes)} a page, ${cap(DEFAULT_ARCHIVE_LIMITS.maxTotalPageBytes)} of pages`,
    ...archive.skipped.map((entry) => `  ${entry.path}: skipped, ${entry.reason}`),
  ];
}
