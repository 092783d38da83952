// `npm run ingest -- llms`: the pages an llms.txt links (or an llms-full.txt holds), read by the Worker's
// own llms.txt reader and ingested as a folder of pages is.
import { siteFor } from "../src/documents/ingest/prepare-pages.ts";
import type { SiteVersion } from "../src/documents/versions.ts";
import { type LlmsPages, readLlmsPages } from "../src/readers/llms-txt.ts";
import { type Connect, type DocsIngestResult, ingestPages, refuseDefaultCorpusBase } from "./ingest-docs.ts";

/** What an llms.txt ingestion fetched, and what it did with the pages. */
export interface LlmsIngestResult extends DocsIngestResult {
  llms: LlmsPages;
  baseUri: string;
  seconds: number;
}

/**
 * Fetches the pages of the llms.txt at `url` (all of them, before anything
 * is written), then ingests them under `--base-uri` (default: the file's
 * origin, so names are `documents/<host>/<path>` of the pages' own URLs).
 * Throws saying why when no page could be fetched.
 */
export async function ingestLlms(
  url: string,
  values: { "base-uri"?: string; "data-source"?: string; "skip-optional": boolean; prune: boolean; refuseShrinking?: boolean; version?: SiteVersion },
  connect: Connect,
  progress?: (line: string) => void,
): Promise<LlmsIngestResult> {
  const started = performance.now();
  const llms = await readLlmsPages(url, { skipOptional: values["skip-optional"], progress });
  const site = siteFor(values["base-uri"] ?? new URL(url).origin, values["data-source"], values.version);
  refuseDefaultCorpusBase(site);
  if (llms.pages.length === 0) {
    const reasons = llms.skipped.slice(0, 5).map((page) => `\n  ${page.path}: ${page.reason}`).join("");
    throw new Error(`fetched no page from ${url} (${llms.skipped.length} links skipped); nothing was written${reasons}`);
  }
  const result = await connect((db, embeddings) => ingestPages(db, llms.pages, site, { prune: values.prune, refuseShrinking: values.refuseShrinking, progress, refuseEmpty: url, embeddings }));
  return { ...result, llms, baseUri: site.baseUri, seconds: (performance.now() - started) / 1000 };
}

/** What was fetched, the caps that bound, and each link skipped with why: the lines after the summary. */
export function describeLlmsRead(result: LlmsIngestResult): string[] {
  const { llms } = result;
  const title = llms.title ? ` "${llms.title}"` : "";
  return [
    `  ${llms.kind}${title}: ${llms.pages.length} pages fetched, ${llms.skipped.length} skipped, in ${result.seconds.toFixed(1)} s`,
    ...llms.capped.map((line) => `  cap: ${line}`),
    ...llms.skipped.map((page) => `  ${page.path}: skipped, ${page.reason}`),
  ];
}
