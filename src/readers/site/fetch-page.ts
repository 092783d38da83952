// Reading one page of a crawl: redirects followed within the origin and the
// run's rules, a conditional request for a page read before, HTML only,
// within the page's size cap, then read as a page.
import { BodyRefused, charsetOf, safeUrl } from "../http.ts";
import { type CrawlClient, RunCapReached } from "./crawl-client.ts";
import type { Frontier } from "./frontier.ts";
import { htmlToPage, type HtmlPage } from "./html.ts";
import { inScope, pageKey } from "./scope.ts";

/** What a previous run kept of a page, to ask for it conditionally. */
export interface PageValidator {
  etag?: string;
  lastModified?: string;
  /** The in-scope pages it links to: a 304 has no body to find them in. */
  links: string[];
}

/** One page the crawl read. */
export type CrawledPage =
  | { url: string; status: "fetched"; page: HtmlPage; etag?: string; lastModified?: string; links: string[] }
  | { url: string; status: "unchanged"; links: string[]; etag?: string; lastModified?: string };

/** A URL the crawl did not ingest, with the reason a person can act on. */
export interface SkippedUrl {
  url: string;
  reason: string;
  /** True when the site says the page is gone (404, 410): only then may --prune remove it. */
  gone?: boolean;
}

/** A page read, or why not; `transient` failures (a timeout, a dropped connection) earn one more try. */
type PageOutcome = { page: CrawledPage } | { skipped: SkippedUrl & { transient?: boolean } };

/** How pages are read in this run. */
export interface PageReading {
  client: CrawlClient;
  frontier: Frontier;
  maxPageBytes: number;
  maxRedirects: number;
  contentSelector?: string;
  publicUrl?: (url: string) => string;
  /** Called for each redirect hop, which counts as a page request. */
  onRedirect: () => void;
}

const HTML_TYPES = /^(?:text\/html|application\/xhtml\+xml)\b/i;

/** Fetches and reads the page at `url`. Never throws for the page; only RunCapReached ends the run. */
export async function fetchPage(url: string, validator: PageValidator | undefined, reading: PageReading): Promise<PageOutcome> {
  const { client, frontier } = reading;
  const { scope } = frontier;
  let current = url;
  for (let redirects = 0; ; redirects += 1) {
    const headers: Record<string, string> = { accept: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1" };
    if (validator && current === url) {
      if (validator.etag) headers["if-none-match"] = validator.etag;
      if (validator.lastModified) headers["if-modified-since"] = validator.lastModified;
    }
    let response: Response;
    try {
      response = await client.get(current, headers);
    } catch (error) {
      return { skipped: { url, reason: client.failure(error), transient: true } };
    }
    if (response.status >= 300 && response.status < 400 && response.status !== 304) {
      await response.body?.cancel();
      const location = response.headers.get("location");
      const target = location ? safeUrl(location, current) : undefined;
      if (!target) return { skipped: { url, reason: `HTTP ${response.status} without a usable Location` } };
      if (new URL(target).origin !== scope.origin) return { skipped: { url, reason: `redirects to another host (${target}); not followed` } };
      if (redirects >= reading.maxRedirects) return { skipped: { url, reason: `more than ${reading.maxRedirects} redirects` } };
      const targetKey = pageKey(target);
      if (targetKey !== url && targetKey !== pageKey(current)) {
        if (!inScope(scope, targetKey)) return { skipped: { url, reason: `redirects outside ${scope.origin}${scope.prefix} (${targetKey})` } };
        const why = frontier.refusal(targetKey);
        if (why) return { skipped: { url, reason: `redirects to ${targetKey}, ${why}` } };
        if (frontier.seen.has(targetKey) && targetKey !== url) return { skipped: { url, reason: `redirects to ${targetKey}, read on its own` } };
        frontier.seen.add(targetKey);
      }
      current = target;
      reading.onRedirect();
      continue;
    }
    if (response.status === 304 && validator) {
      await response.body?.cancel();
      return { page: { url, status: "unchanged", links: validator.links, ...pageValidators(validator) } };
    }
    if (!response.ok) {
      await response.body?.cancel();
      return { skipped: { url, reason: `HTTP ${response.status}`, ...(response.status === 404 || response.status === 410 ? { gone: true } : {}) } };
    }
    const type = response.headers.get("content-type") ?? "";
    if (!HTML_TYPES.test(type)) {
      await response.body?.cancel();
      return { skipped: { url, reason: `not HTML (${type.split(";")[0]?.trim() || "no content-type"})` } };
    }
    let html: string;
    try {
      html = new TextDecoder(charsetOf(type)).decode((await client.body(response, reading.maxPageBytes, "the page")).bytes);
    } catch (error) {
      if (error instanceof RunCapReached) throw error;
      return { skipped: { url, reason: client.failure(error), ...(error instanceof BodyRefused ? {} : { transient: true }) } };
    }
    let page: HtmlPage;
    try {
      page = htmlToPage(html, { url: current, publicUrl: reading.publicUrl, contentSelector: reading.contentSelector });
    } catch (error) {
      // One page the reader cannot take is that page's failure, never the crawl's.
      return { skipped: { url, reason: `could not be read as HTML (${error instanceof Error ? error.message : String(error)})` } };
    }
    const links = page.links.filter((link) => inScope(scope, pageKey(link)));
    const etag = response.headers.get("etag") ?? undefined;
    const lastModified = response.headers.get("last-modified") ?? undefined;
    return { page: { url, status: "fetched", page, links, ...pageValidators({ etag, lastModified }) } };
  }
}

/** The validators worth keeping: only the ones the server sent. */
function pageValidators(validator: { etag?: string; lastModified?: string }): { etag?: string; lastModified?: string } {
  return {
    ...(validator.etag ? { etag: validator.etag } : {}),
    ...(validator.lastModified ? { lastModified: validator.lastModified } : {}),
  };
}
