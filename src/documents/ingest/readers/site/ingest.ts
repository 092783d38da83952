/**
 * A website into the corpus: crawl (crawl.ts), each page's article as
 * Markdown through the pipeline every reader shares (prepareDocument: site
 * markup cleaning, chunking, hashing), then syncDocuments, which publishes
 * the pages together with their HTTP validators for the next run's
 * conditional requests. Worker-safe: D1 and a `fetch` are all it needs.
 */
import { prepareDocument, siteFor, PageError, type PreparedDocument, type Site } from "../../prepare-pages.ts";
import { documentNameForUri } from "../../../names.ts";
import { syncDocuments, type WriteProgress } from "../../write-corpus.ts";
import type { SiteVersion } from "../../../versions.ts";
import type { SyncReport } from "../../../../sync-report.ts";
import { crawlSite, type CrawlLimits, type CrawlResult, type PageValidator, type SkippedUrl } from "./crawl.ts";
import { inScope, pageKey, publicUrlFor, scopeOf } from "./scope.ts";

/** What to crawl and how. */
export interface SiteIngestOptions {
  /** The start URL; its origin and folder are the crawl's scope. */
  start: string;
  /** The public URL the crawled folder is published at (`--base-uri`); the start folder itself when absent. */
  baseUri?: string;
  dataSource?: string;
  /** `--version` / `--current`: the crawled pages are this version of their data source (src/documents/versions.ts). */
  version?: SiteVersion;
  prune: boolean;
  fetch: typeof fetch;
  userAgent: string;
  include?: readonly string[];
  exclude?: readonly string[];
  contentSelector?: string;
  limits?: Partial<CrawlLimits>;
  onProgress?: (line: string) => void;
  onWriteProgress?: (progress: WriteProgress) => void;
}

/** What a site ingestion did. */
export interface SiteIngestResult extends SyncReport {
  site: Site;
  source: CrawlResult["source"];
  /** Pages read: fetched anew or confirmed unchanged by a 304. */
  fetched: number;
  notModified: number;
  requests: number;
  bytes: number;
  stoppedBy?: string;
  /** Why --prune was not applied, when it was asked for and was not safe. */
  pruneRefused?: string;
  skipped: SkippedUrl[];
  /** Per page, what the reader noticed and did not use (a foreign canonical link). */
  notes: { url: string; note: string }[];
}

/**
 * Crawls the site and makes the pages under its base URI match it. Throws a
 * plain Error, before anything is written, when no page could be read (with
 * the first reasons), or when the base URI is not a URL.
 */
export async function ingestSite(db: D1Database, options: SiteIngestOptions): Promise<SiteIngestResult> {
  const scope = scopeOf(options.start);
  const site = siteFor(options.baseUri ?? `${scope.origin}${scope.prefix}`, options.dataSource, options.version);
  const publicUrl = publicUrlFor(scope, options.baseUri ? site.baseUri : undefined);
  const known = await loadValidators(db, site.baseUri);
  const crawl = await crawlSite({
    start: options.start,
    fetch: options.fetch,
    userAgent: options.userAgent,
    include: options.include,
    exclude: options.exclude,
    contentSelector: options.contentSelector,
    publicUrl,
    limits: options.limits,
    validators: new Map([...known].map(([url, row]) => [url, row.validator])),
    onProgress: options.onProgress,
  });
  if (crawl.pages.length === 0) {
    const reasons = crawl.skipped.slice(0, 5).map((skip) => `${skip.url}: ${skip.reason}`);
    throw new Error(`fetched no page from ${options.start}, nothing was written${reasons.length > 0 ? `:\n  ${reasons.join("\n  ")}` : ""}`);
  }

  options.onProgress?.(`read ${crawl.pages.length} pages in ${crawl.requests} requests; preparing them`);
  const skipped = [...crawl.skipped];
  const notes: SiteIngestResult["notes"] = [];
  const documents: PreparedDocument[] = [];
  const keep: string[] = [];
  const urlOfName = new Map<string, string>();
  const validators: { url: string; name: string; etag?: string; lastModified?: string; links: string[] }[] = [];
  for (const [index, crawled] of crawl.pages.entries()) {
    if (options.onProgress && crawl.pages.length > 100 && (index + 1) % 100 === 0) options.onProgress(`prepared ${index + 1}/${crawl.pages.length} pages`);
    if (crawled.status === "unchanged") {
      const name = known.get(crawled.url)?.name;
      if (!name) continue;
      keep.push(name);
      urlOfName.set(name, crawled.url);
      validators.push({ url: crawled.url, name, links: crawled.links, ...validatorsOf(crawled) });
      continue;
    }
    const { page } = crawled;
    let key = crawled.url;
    if (page.canonical) {
      // A canonical elsewhere (another host, file:///, a wrong folder) names nothing this crawl can vouch for.
      const canonical = /^https?:/.test(page.canonical) ? pageKey(page.canonical) : undefined;
      if (canonical && inScope(scope, canonical)) key = canonical;
      else notes.push({ url: crawled.url, note: `canonical ${page.canonical} ignored: not under ${scope.origin}${scope.prefix}` });
    }
    const uri = publicUrl(key);
    const name = documentNameForUri(uri);
    const first = urlOfName.get(name);
    if (first) {
      skipped.push({ url: crawled.url, reason: `the same page as ${first} (${key === crawled.url ? "same address" : "its canonical link"})` });
      continue;
    }
    const frontMatter = JSON.stringify({ ...(page.title ? { title: page.title } : {}), ...(page.description ? { description: page.description } : {}) });
    let document: PreparedDocument | null;
    try {
      document = await prepareDocument(new URL(key).pathname.slice(1) || "index", `---\n${frontMatter}\n---\n${page.markdown}\n`, site);
    } catch (error) {
      if (!(error instanceof PageError)) throw error;
      skipped.push({ url: crawled.url, reason: error.message });
      continue;
    }
    if (!document) {
      skipped.push({ url: crawled.url, reason: "no article text (nothing left after navigation, chrome and hidden text)" });
      continue;
    }
    // The page is known by its public URL, not by a file path.
    documents.push({ ...document, uri, name, path: crawled.url });
    urlOfName.set(name, crawled.url);
    validators.push({ url: crawled.url, name, links: crawled.links, ...validatorsOf(crawled) });
  }

  // A crawl cut short, or pages that failed for now, say nothing about what the site no longer has.
  let pruneRefused: string | undefined;
  if (options.prune && crawl.stoppedBy) pruneRefused = `the crawl stopped at ${crawl.stoppedBy}, so pages it did not reach were kept`;
  for (const skip of crawl.skipped) {
    const name = known.get(skip.url)?.name;
    if (name && !skip.gone) keep.push(name);
  }
  options.onProgress?.(`writing ${documents.length} pages to D1 (${keep.length} unchanged kept)`);
  // The validators are published with the pages: saved alone, they could promise the next crawl a text it never stored.
  const report = await syncDocuments(db, site, documents, {
    prune: options.prune && !pruneRefused,
    keep,
    validators,
    onProgress: options.onWriteProgress,
  });
  return {
    ...report,
    site,
    source: crawl.source,
    fetched: crawl.pages.filter((page) => page.status === "fetched").length,
    notModified: crawl.pages.filter((page) => page.status === "unchanged").length,
    requests: crawl.requests,
    bytes: crawl.bytes,
    ...(crawl.stoppedBy ? { stoppedBy: crawl.stoppedBy } : {}),
    ...(pruneRefused ? { pruneRefused } : {}),
    skipped,
    notes,
  };
}

function validatorsOf(page: { etag?: string; lastModified?: string }): { etag?: string; lastModified?: string } {
  return { ...(page.etag ? { etag: page.etag } : {}), ...(page.lastModified ? { lastModified: page.lastModified } : {}) };
}

/** The validators a previous crawl of this base URI kept, for pages still in the corpus. */
async function loadValidators(db: D1Database, baseUri: string): Promise<Map<string, { name: string; validator: PageValidator }>> {
  const { results } = await db
    .prepare(
      `SELECT s.url, s.document_name, s.etag, s.last_modified, s.links FROM site_pages s
       JOIN documents d ON d.name = s.document_name WHERE s.base_uri = ?1`,
    )
    .bind(baseUri)
    .all<{ url: string; document_name: string; etag: string | null; last_modified: string | null; links: string }>();
  return new Map(
    results.map((row) => [
      row.url,
      {
        name: row.document_name,
        validator: {
          links: parseLinks(row.links),
          ...(row.etag ? { etag: row.etag } : {}),
          ...(row.last_modified ? { lastModified: row.last_modified } : {}),
        },
      },
    ]),
  );
}

function parseLinks(json: string): string[] {
  try {
    const links: unknown = JSON.parse(json);
    return Array.isArray(links) ? links.filter((link): link is string => typeof link === "string") : [];
  } catch {
    return [];
  }
}
