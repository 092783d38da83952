/**
 * What a site says about itself before any page is read: its robots.txt
 * (RFC 9309) and its sitemaps (sitemaps.org), each read once per crawl.
 */
import { formatBytes, gunzipText, safeUrl } from "../http.ts";
import { type CrawlClient, RunCapReached } from "./crawl-client.ts";
import { ALLOW_ALL, parseRobots, withoutComment, type Robots } from "./robots.ts";
import type { CrawlScope } from "./scope.ts";
import { parseSitemap } from "./sitemap.ts";

/**
 * What robots.txt said, kept so a resumed crawl need not ask again:
 * its rules (`cut` when only its first MAX_ROBOTS_BYTES were read), none
 * (a 4xx, or a redirect off the origin: `ignored` says why), or unreadable.
 */
export type SavedRobots = { text: string; cut?: true } | { unreadable: string } | { ignored: string } | "allow-all";

/** The part of a robots.txt read: RFC 9309 asks crawlers to parse at least 500 KiB, and a longer file still has rules. */
const MAX_ROBOTS_BYTES = 500 * 1024;

/**
 * The site's robots.txt as it is kept between calls. Missing (4xx) allows
 * everything; unreachable (5xx, network error) allows nothing, as RFC 9309
 * says, with the reason. Redirects are followed on the same host only (http
 * → https): one to another host is taken as no robots.txt (RFC 9309's
 * "unavailable"), and said.
 */
export async function readRobots(url: string, client: CrawlClient): Promise<SavedRobots> {
  try {
    let response = await client.get(url);
    for (let hops = 0; response.status >= 300 && response.status < 400 && hops < 5; hops += 1) {
      await response.body?.cancel();
      const location = response.headers.get("location");
      const target = location ? safeUrl(location, url) : undefined;
      if (!target) break;
      // Another scheme or port of the same host (http → https) is still the site's own robots.txt.
      if (new URL(target).hostname !== new URL(url).hostname) return { ignored: `it redirects to another host (${target}); not followed, so read as no robots.txt` };
      response = await client.get(target);
    }
    if (response.status >= 400 && response.status < 500) {
      await response.body?.cancel();
      return "allow-all";
    }
    if (!response.ok) {
      await response.body?.cancel();
      return { unreadable: `HTTP ${response.status}` };
    }
    const { bytes, cut } = await client.body(response, MAX_ROBOTS_BYTES, "robots.txt", true);
    const text = new TextDecoder().decode(bytes);
    if (!cut) return { text: robotsLines(text) };
    // The cut line may be a rule's first half: a shorter Allow would allow more than the site wrote.
    const wholeLines = text.slice(0, Math.max(0, text.lastIndexOf("\n"), text.lastIndexOf("\r")));
    return { text: robotsLines(wholeLines), cut };
  } catch (error) {
    if (error instanceof RunCapReached) throw error;
    return { unreadable: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Only the lines parseRobots reads (no comments, blanks or stray text), so the
 * state stays small; dropping them changes no rule, since they never end a group.
 */
function robotsLines(text: string): string {
  return text
    .split(/\r\n|\r|\n/)
    .map((line) => withoutComment(line).trim())
    .filter((line) => line.indexOf(":") > 0)
    .join("\n");
}

/** The rules of a kept robots.txt for our user agent. */
export function robotsRules(saved: SavedRobots, agent: string): Robots {
  if (saved === "allow-all" || "ignored" in saved) return ALLOW_ALL;
  if ("unreadable" in saved) return { allows: () => false, sitemaps: [] };
  return parseRobots(saved.text, agent);
}

/** What the report says of robots.txt, when it is not simply read or absent. */
export function robotsReport(saved: SavedRobots): string | undefined {
  if (saved === "allow-all") return undefined;
  if ("unreadable" in saved) return `robots.txt could not be read (${saved.unreadable}); RFC 9309 says to crawl nothing until it can`;
  if ("ignored" in saved) return `robots.txt ignored: ${saved.ignored}`;
  if (saved.cut) return `robots.txt is over ${formatBytes(MAX_ROBOTS_BYTES)}: only its first ${formatBytes(MAX_ROBOTS_BYTES)} were read, as RFC 9309 allows`;
  return undefined;
}

/** One sitemap's cap: sitemaps.org allows 50 MB uncompressed. */
const MAX_SITEMAP_BYTES = 50 * 1024 * 1024;

/**
 * Page URLs from the robots.txt `Sitemap:` lines (on the site's origin), else
 * `sitemap.xml` in the start folder; sitemap indexes followed up to
 * `maxSitemaps`, gzip expanded. No pages when the site has no readable
 * sitemap; `skipped` says what could not be read.
 */
export async function readSitemaps(scope: CrawlScope, robots: Robots, maxSitemaps: number, client: CrawlClient): Promise<{ pages: string[]; skipped: { url: string; reason: string }[] }> {
  const declared = robots.sitemaps.map((url) => safeUrl(url, scope.origin)).filter((url): url is string => url !== undefined && new URL(url).origin === scope.origin);
  const toRead = declared.length > 0 ? declared : [`${scope.origin}${scope.prefix}sitemap.xml`];
  const pages: string[] = [];
  const skipped: { url: string; reason: string }[] = [];
  const read = new Set<string>();
  while (toRead.length > 0 && read.size < maxSitemaps) {
    const url = toRead.shift() as string;
    if (read.has(url)) continue;
    read.add(url);
    let text: string;
    try {
      const response = await client.get(url);
      if (!response.ok) {
        await response.body?.cancel();
        // The default sitemap.xml missing is the ordinary case, not worth a line.
        if (declared.length > 0) skipped.push({ url, reason: `sitemap: HTTP ${response.status}` });
        continue;
      }
      const { bytes } = await client.body(response, MAX_SITEMAP_BYTES, "the sitemap");
      text = await gunzipText(bytes, MAX_SITEMAP_BYTES);
    } catch (error) {
      if (error instanceof RunCapReached) throw error;
      skipped.push({ url, reason: `sitemap: ${client.failure(error)}` });
      continue;
    }
    const sitemap = parseSitemap(text);
    if (!sitemap) {
      if (declared.length > 0) skipped.push({ url, reason: "sitemap: not a sitemap (no <urlset> or <sitemapindex>)" });
      continue;
    }
    for (const location of sitemap.locations) {
      const next = safeUrl(location, url);
      if (sitemap.kind === "index") {
        if (next && new URL(next).origin === scope.origin) toRead.push(next);
      } else if (next) {
        pages.push(next);
      }
    }
  }
  for (const url of toRead) skipped.push({ url, reason: `sitemap not read: over the cap of ${maxSitemaps} sitemaps` });
  return { pages, skipped };
}
