// Loads a folder of Markdown pages into D1 with the Worker's own parsing and storage code.
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { PageError, prepareDocument, type PreparedDocument, type Site } from "../src/documents/ingest.ts";
import { syncDocuments, type SyncReport } from "../src/documents/store.ts";

const PAGE_EXTENSIONS = /\.(md|mdx|markdown)$/i;

/** What a docs ingestion did, and the pages it skipped with the reason. */
export interface DocsIngestResult extends SyncReport {
  skipped: { path: string; reason: string }[];
}

/**
 * Ingests every page under `dir` for one site. All or nothing: if any page is
 * malformed, the errors are thrown together and nothing is written.
 */
export async function ingestDocsFolder(db: D1Database, dir: string, site: Site, options: { prune: boolean }): Promise<DocsIngestResult> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const paths = entries
    .filter((entry) => entry.isFile() && PAGE_EXTENSIONS.test(entry.name))
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split("\\").join("/"))
    .sort();
  if (paths.length === 0) throw new Error(`${dir} has no .md, .mdx or .markdown files`);
  const documents: PreparedDocument[] = [];
  const errors: string[] = [];
  const skipped: DocsIngestResult["skipped"] = [];
  for (const path of paths) {
    try {
      const document = await prepareDocument(path, await readFile(join(dir, path), "utf8"), site);
      if (document) documents.push(document);
      else skipped.push({ path, reason: "no content after the front matter" });
    } catch (error) {
      if (!(error instanceof PageError)) throw error;
      errors.push(error.message);
    }
  }
  if (errors.length > 0) {
    throw new Error(`nothing was ingested; fix these pages and run again:\n  ${errors.join("\n  ")}`);
  }
  return { ...(await syncDocuments(db, site.baseUri, documents, options)), skipped };
}

/** One line a person can read: what changed. */
export function describeDocsIngest(baseUri: string, result: DocsIngestResult): string {
  const parts = [
    `${result.added.length} added`,
    `${result.updated.length} updated`,
    `${result.unchanged.length} unchanged`,
    `${result.removed.length} removed`,
  ];
  if (result.skipped.length > 0) parts.push(`${result.skipped.length} skipped (empty)`);
  return `${baseUri}: ${parts.join(", ")}`;
}
