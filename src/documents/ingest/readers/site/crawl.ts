/**
 * Crawls one documentation site politely and within caps: pages from its
 * sitemaps (robots.txt `Sitemap:` lines, else `sitemap.xml`), else from the
 * links of its pages; robots.txt honoured; a few requests at a time; every
 * request timed out, every body size-capped; redirects only within the
 * origin; conditional requests for pages read before. Only `fetch`, Web
 * Streams and `DecompressionStream`: it runs in a Worker as in the CLI, and
 * tests hand it their own `fetch`. A crawl may run in pieces (a Workflow's
 * steps): each call starts at most `requestBudget` page requests and returns
 * a `CrawlState` from which the next call carries on.
 */
import { htmlToPage, type HtmlPage } from "./html.ts";
import { ALLOW_ALL, parseRobots, withoutComment, type Robots } from "./robots.ts";
import { globMatcher, inScope, pageKey, scopeOf, type CrawlScope } from "./scope.ts";
import { parseSitemap } from "./sitemap.ts";
import { concatBytes } from "../../../../text/bytes.ts";

/** The caps of one crawl; each binds with a line in the report. */
export interface CrawlLimits {
  /** Page requests per run (`--max-pages`). */
  maxPages: number;
  /** Bytes of one page's body; a larger page is skipped. */
  maxPageBytes: number;
  /** Bytes read in the whole run (pages, sitemaps, robots.txt); the crawl stops there. */
  maxRunBytes: number;
  /** One request, headers and body, in milliseconds (`--timeout`). */
  timeoutMs: number;
  /** Requests at once (one when the site asks for a Crawl-delay). */
  concurrency: number;
  /** The longest Crawl-delay honoured, in seconds; a longer one is cut to this. */
  maxCrawlDelaySeconds: number;
  /** Redirects followed per page. */
  maxRedirects: number;
  /** Sitemap files read (an index and the sitemaps it lists). */
  maxSitemaps: number;
}

const MB = 1024 * 1024;

/** Defaults that protect the person running the crawl and the site crawled. */
export const DEFAULT_CRAWL_LIMITS: CrawlLimits = {
  maxPages: 2000,
  maxPageBytes: 5 * MB,
  maxRunBytes: 500 * MB,
  timeoutMs: 30_000,
  concurrency: 4,
  maxCrawlDelaySeconds: 10,
  maxRedirects: 5,
  maxSitemaps: 50,
};

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

/**
 * What robots.txt said, kept so a resumed crawl need not ask again:
 * its rules (`cut` when only its first MAX_ROBOTS_BYTES were read), none
 * (a 4xx, or a redirect off the origin: `ignored` says why), or unreadable.
 */
export type SavedRobots = { text: string; cut?: true } | { unreadable: string } | { ignored: string } | "allow-all";

/** Where a crawl stands between two calls: plain JSON (a Workflow step's result), well under 1 MiB for maxPages 2000. */
export interface CrawlState {
  source: "sitemap" | "links";
  /** Re-parsed on resume, so robots.txt is not requested again. */
  robots: SavedRobots;
  /** Page keys still to fetch, in order. */
  queue: string[];
  /** Every key enqueued or skipped so far. */
  seen: string[];
  /** Page requests started (for --max-pages). */
  started: number;
  /** URL and its first failure, for the one retry of a transient failure. */
  retried: [string, string][];
  /** Totals over the whole crawl so far. */
  requests: number;
  bytes: number;
}

/** Everything one call of a crawl found. */
export interface CrawlResult {
  /** Where the page list came from. */
  source: "sitemap" | "links";
  /** Pages this call read (a resumed crawl's caller gathers them across calls). */
  pages: CrawledPage[];
  /** URLs this call skipped. */
  skipped: SkippedUrl[];
  /** The cap that ended the crawl early, said in the summary; absent when the whole site was read. */
  stoppedBy?: string;
  /** Totals over the whole crawl so far. */
  requests: number;
  bytes: number;
  /** What the next call needs to carry on (`resume`). */
  state: CrawlState;
  /** True when nothing is left to fetch: the queue is empty or a cap ended the crawl. */
  done: boolean;
}

/** What a call has found so far; `state` and `done` are added when it returns. */
type Findings = Omit<CrawlResult, "state" | "done">;

/** How to crawl. */
export interface CrawlOptions {
  start: string;
  /** The fetch to use: the platform's, or a test's. */
  fetch: typeof fetch;
  /** Sent on every request, e.g. "Almanac/0.1.0 (+https://…)"; its first word is matched against robots.txt groups. */
  userAgent: string;
  include?: readonly string[];
  exclude?: readonly string[];
  contentSelector?: string;
  /** Maps crawled URLs onto public ones for the links inside pages (`--base-uri`). */
  publicUrl?: (url: string) => string;
  limits?: Partial<CrawlLimits>;
  /** By page URL (no query or fragment): what the last run kept. */
  validators?: ReadonlyMap<string, PageValidator>;
  onProgress?: (line: string) => void;
  /** Carry on from a previous call's `state`: no robots.txt or sitemap requests, only the queue. */
  resume?: CrawlState;
  /**
   * Read exactly these pages (a push naming the URLs it changed): robots.txt
   * is read, but no sitemap or start page, and no link is followed. Give it
   * again with `resume`.
   */
  only?: readonly string[];
  /**
   * Page requests this call may start, redirect hops included (at least 1).
   * When it is reached no new page is taken; pages in flight finish, so their
   * redirect hops may pass it by up to concurrency × maxRedirects. Absent: no limit.
   */
  requestBudget?: number;
}

/** Paths that are files, not pages: not fetched, reported. */
const NOT_A_PAGE = /\.(?:png|jpe?g|gif|svg|webp|ico|css|js|mjs|map|json|xml|txt|rst|md|pdf|zip|gz|tgz|bz2|xz|tar|epub|woff2?|ttf|eot|mp3|mp4|webm|wasm|inv|py|c|h)$/i;

const HTML_TYPES = /^(?:text\/html|application\/xhtml\+xml)\b/i;

/** Progress lines every this many pages. */
const PROGRESS_EVERY = 25;

/** Thrown inside the crawl when the run's byte cap is reached. */
class RunCapReached extends Error {}

/** A body the crawl will not take (over its size cap, gzip cut short); the message says why, and trying again would not help. */
class BodyRefused extends Error {}

/**
 * Crawls the site under `options.start`, or carries on from `options.resume`.
 * Never throws for a page: each one that cannot be read is in `skipped` with
 * its reason. Throws a plain Error only when the start URL is not http(s).
 */
export async function crawlSite(options: CrawlOptions): Promise<CrawlResult> {
  const limits = { ...DEFAULT_CRAWL_LIMITS, ...options.limits };
  const scope = scopeOf(options.start);
  const agentToken = options.userAgent.split(/[\s/]/)[0] ?? options.userAgent;
  const includes = (options.include ?? []).map((glob) => ({ glob, matches: globMatcher(glob) }));
  const excludes = (options.exclude ?? []).map((glob) => ({ glob, matches: globMatcher(glob) }));
  const resume = options.resume;
  const result: Findings = { source: resume?.source ?? "links", pages: [], skipped: [], requests: resume?.requests ?? 0, bytes: resume?.bytes ?? 0 };

  /**
   * One request within the caps: its headers and body share one deadline.
   * The deadline is enforced here, not only by the signal, so a fetch that
   * ignores its signal cannot hang the crawl either.
   */
  const deadlines = new WeakMap<Response, AbortSignal>();
  const request = async (url: string, headers: Record<string, string> = {}): Promise<Response> => {
    result.requests += 1;
    const signal = AbortSignal.timeout(limits.timeoutMs);
    const response = await beforeDeadline(
      options.fetch(url, { headers: { "user-agent": options.userAgent, ...headers }, redirect: "manual", signal }),
      signal,
    );
    deadlines.set(response, signal);
    return response;
  };
  /**
   * A body within `maxBytes`; past it, a BodyRefused, or with `keepFirst`
   * the first `maxBytes` bytes and `cut` (robots.txt: RFC 9309 reads a prefix).
   */
  const readBody = async (response: Response, maxBytes: number, what: string, keepFirst = false): Promise<{ bytes: Uint8Array; cut: boolean }> => {
    const declared = Number(response.headers.get("content-length"));
    if (!keepFirst && Number.isFinite(declared) && declared > maxBytes) {
      await response.body?.cancel();
      throw new BodyRefused(`${what} is ${formatBytes(declared)}, over the ${formatBytes(maxBytes)} cap`);
    }
    const reader = response.body?.getReader();
    if (!reader) return { bytes: new Uint8Array(), cut: false };
    const signal = deadlines.get(response);
    const parts: Uint8Array[] = [];
    let size = 0;
    try {
      for (;;) {
        const { done, value } = await beforeDeadline(reader.read(), signal);
        if (done) break;
        result.bytes += value.byteLength;
        if (result.bytes > limits.maxRunBytes) throw new RunCapReached();
        if (size + value.byteLength > maxBytes) {
          if (!keepFirst) throw new BodyRefused(`${what} is over the ${formatBytes(maxBytes)} cap`);
          parts.push(value.subarray(0, maxBytes - size));
          reader.cancel().catch(() => {});
          return { bytes: concatBytes(parts, maxBytes), cut: true };
        }
        size += value.byteLength;
        parts.push(value);
      }
    } catch (error) {
      reader.cancel().catch(() => {});
      throw error;
    }
    return { bytes: concatBytes(parts, size), cut: false };
  };

  const robotsUrl = `${scope.origin}/robots.txt`;
  const savedRobots = resume ? resume.robots : await readRobots(robotsUrl, request, readBody);
  // Said once, by the call that tried to read it; resumed calls still crawl nothing.
  if (!resume) {
    const said = robotsReport(savedRobots);
    if (said) result.skipped.push({ url: robotsUrl, reason: said });
  }
  const robots = robotsRules(savedRobots, agentToken);
  const delaySeconds = Math.min(robots.crawlDelaySeconds ?? 0, limits.maxCrawlDelaySeconds);
  const concurrency = delaySeconds > 0 ? 1 : Math.max(1, limits.concurrency);

  /** Why a URL in scope is not fetched, or null when it may be. */
  const refusal = (url: string): string | null => {
    const path = new URL(url).pathname;
    if (!robots.allows(path)) return "disallowed by robots.txt";
    const excluded = excludes.find((exclude) => exclude.matches(path));
    if (excluded) return `excluded by --exclude ${excluded.glob}`;
    if (includes.length > 0 && !includes.some((include) => include.matches(path))) return `not matched by --include ${includes.map((include) => include.glob).join(" ")}`;
    const extension = NOT_A_PAGE.exec(path);
    if (extension) return `not a page (${extension[0]})`;
    return null;
  };

  const seen = new Set<string>(resume?.seen);
  const queue = new UrlQueue(resume?.queue ?? []);
  const enqueue = (url: string, reportOutOfScope: boolean): void => {
    let key: string;
    try {
      key = pageKey(url);
    } catch {
      return;
    }
    if (seen.has(key)) return;
    seen.add(key);
    if (!inScope(scope, key)) {
      if (reportOutOfScope) result.skipped.push({ url: key, reason: `outside ${scope.origin}${scope.prefix}` });
      return;
    }
    const why = refusal(key);
    if (why) result.skipped.push({ url: key, reason: why });
    else queue.push(key);
  };

  let started = resume?.started ?? 0;
  /** Pages waiting for their second try, with why the first failed. */
  const retried = new Map<string, string>(resume?.retried);
  /** Page requests of this call, against `options.requestBudget`. */
  let spent = 0;
  const budget = options.requestBudget ?? Number.POSITIVE_INFINITY;
  try {
    if (!resume && options.only) {
      for (const url of options.only) enqueue(url, true);
    } else if (!resume) {
      const listed = await readSitemaps(scope, robots, limits, request, readBody, result);
      if (listed.length > 0) {
        result.source = "sitemap";
        for (const url of listed) enqueue(url, true);
      } else {
        enqueue(scope.start, true);
      }
    }

    let lastRequestAt = 0;
    const crawlOne = async (url: string): Promise<void> => {
      const validator = options.validators?.get(url);
      const outcome = await fetchPage(url, validator);
      if (outcome.skipped) {
        // A timeout or a dropped connection may be the moment (the thread was busy parsing other pages): one more try, last in line.
        if (outcome.skipped.transient && !retried.has(url)) {
          retried.set(url, outcome.skipped.reason);
          started -= 1;
          queue.push(url);
          return;
        }
        const { transient, ...skipped } = outcome.skipped;
        result.skipped.push(transient ? { ...skipped, reason: `${skipped.reason}, tried twice` } : skipped);
        return;
      }
      const crawled = outcome.page as CrawledPage;
      result.pages.push(crawled);
      if (result.source === "links" && !options.only) for (const link of crawled.links) enqueue(link, false);
      if (options.onProgress && result.pages.length % PROGRESS_EVERY === 0) {
        options.onProgress(`read ${result.pages.length} pages (${queue.size} queued, ${formatBytes(result.bytes)})`);
      }
    };

    /** Fetches a page, following redirects within the origin. */
    const fetchPage = async (url: string, validator: PageValidator | undefined): Promise<{ page?: CrawledPage; skipped?: SkippedUrl & { transient?: boolean } }> => {
      let current = url;
      for (let redirects = 0; ; redirects += 1) {
        const headers: Record<string, string> = { accept: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1" };
        if (validator && current === url) {
          if (validator.etag) headers["if-none-match"] = validator.etag;
          if (validator.lastModified) headers["if-modified-since"] = validator.lastModified;
        }
        let response: Response;
        try {
          response = await request(current, headers);
        } catch (error) {
          return { skipped: { url, reason: fetchFailure(error, limits.timeoutMs), transient: true } };
        }
        if (response.status >= 300 && response.status < 400 && response.status !== 304) {
          await response.body?.cancel();
          const location = response.headers.get("location");
          const target = location ? safeUrl(location, current) : undefined;
          if (!target) return { skipped: { url, reason: `HTTP ${response.status} without a usable Location` } };
          if (new URL(target).origin !== scope.origin) return { skipped: { url, reason: `redirects to another host (${target}); not followed` } };
          if (redirects >= limits.maxRedirects) return { skipped: { url, reason: `more than ${limits.maxRedirects} redirects` } };
          const targetKey = pageKey(target);
          if (targetKey !== url && targetKey !== pageKey(current)) {
            if (!inScope(scope, targetKey)) return { skipped: { url, reason: `redirects outside ${scope.origin}${scope.prefix} (${targetKey})` } };
            const why = refusal(targetKey);
            if (why) return { skipped: { url, reason: `redirects to ${targetKey}, ${why}` } };
            if (seen.has(targetKey) && targetKey !== url) return { skipped: { url, reason: `redirects to ${targetKey}, read on its own` } };
            seen.add(targetKey);
          }
          current = target;
          spent += 1;
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
          html = new TextDecoder(charsetOf(type)).decode((await readBody(response, limits.maxPageBytes, "the page")).bytes);
        } catch (error) {
          if (error instanceof RunCapReached) throw error;
          return { skipped: { url, reason: fetchFailure(error, limits.timeoutMs), ...(error instanceof BodyRefused ? {} : { transient: true }) } };
        }
        let page: HtmlPage;
        try {
          page = htmlToPage(html, { url: current, publicUrl: options.publicUrl, contentSelector: options.contentSelector });
        } catch (error) {
          // One page the reader cannot take is that page's failure, never the crawl's.
          return { skipped: { url, reason: `could not be read as HTML (${error instanceof Error ? error.message : String(error)})` } };
        }
        const links = page.links.filter((link) => inScope(scope, pageKey(link)));
        const etag = response.headers.get("etag") ?? undefined;
        const lastModified = response.headers.get("last-modified") ?? undefined;
        return { page: { url, status: "fetched", page, links, ...pageValidators({ etag, lastModified }) } };
      }
    };

    const worker = async (): Promise<void> => {
      for (;;) {
        if (result.stoppedBy) return;
        const url = queue.next();
        if (url === undefined) {
          // Others may still add links: wait for them while any request is out.
          if (inFlight === 0) return;
          await new Promise((resolve) => setTimeout(resolve, 5));
          continue;
        }
        if (started >= limits.maxPages) {
          result.stoppedBy = `--max-pages ${limits.maxPages}`;
          return;
        }
        // This call's share is spent: the queue waits in the state for the next call.
        if (spent >= budget) return;
        queue.take();
        started += 1;
        spent += 1;
        if (delaySeconds > 0) {
          const wait = lastRequestAt + delaySeconds * 1000 - Date.now();
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
          lastRequestAt = Date.now();
        }
        inFlight += 1;
        try {
          await crawlOne(url);
        } finally {
          inFlight -= 1;
        }
      }
    };
    let inFlight = 0;
    await Promise.all(Array.from({ length: concurrency }, worker));
    if (result.stoppedBy) {
      // A loop, not push(...queue): a sitemap index may queue 200,000 URLs, past the arguments a call can take.
      for (const url of queue.takeAll()) {
        const first = retried.get(url);
        result.skipped.push({ url, reason: first ? `${first}; not tried again: the crawl stopped at ${result.stoppedBy}` : `not read: the crawl stopped at ${result.stoppedBy}` });
      }
    }
  } catch (error) {
    if (!(error instanceof RunCapReached)) throw error;
    result.stoppedBy = `the ${formatBytes(limits.maxRunBytes)} run cap`;
  }
  result.pages.sort((a, b) => a.url.localeCompare(b.url));
  // Copies: after the run cap, requests still out may go on touching the live ones.
  const state: CrawlState = {
    source: result.source,
    robots: savedRobots,
    queue: queue.toArray(),
    seen: [...seen],
    started,
    retried: [...retried],
    requests: result.requests,
    bytes: result.bytes,
  };
  return { ...result, state, done: result.stoppedBy !== undefined || queue.size === 0 };
}

/**
 * Page keys to fetch, first in first out. Taking one moves an index:
 * Array#shift copies the whole array once it is large (a sitemap index may
 * queue 200,000 URLs), so a crawl of it would be quadratic.
 */
class UrlQueue {
  private keys: string[];
  private head = 0;

  constructor(keys: readonly string[]) {
    this.keys = [...keys];
  }

  get size(): number {
    return this.keys.length - this.head;
  }

  /** The key taken next, without taking it. */
  next(): string | undefined {
    return this.keys[this.head];
  }

  take(): string | undefined {
    const key = this.keys[this.head];
    if (key === undefined) return undefined;
    this.head += 1;
    // Drop the taken keys once they are half the array: amortised O(1) a key.
    if (this.head > 1024 && this.head * 2 > this.keys.length) {
      this.keys = this.keys.slice(this.head);
      this.head = 0;
    }
    return key;
  }

  push(key: string): void {
    this.keys.push(key);
  }

  /** Every key still queued, in order, leaving the queue empty. */
  takeAll(): string[] {
    const rest = this.toArray();
    this.keys = [];
    this.head = 0;
    return rest;
  }

  toArray(): string[] {
    return this.keys.slice(this.head);
  }
}

/** The validators worth keeping: only the ones the server sent. */
function pageValidators(validator: { etag?: string; lastModified?: string }): { etag?: string; lastModified?: string } {
  return {
    ...(validator.etag ? { etag: validator.etag } : {}),
    ...(validator.lastModified ? { lastModified: validator.lastModified } : {}),
  };
}

type Request = (url: string, headers?: Record<string, string>) => Promise<Response>;
type ReadBody = (response: Response, maxBytes: number, what: string, keepFirst?: boolean) => Promise<{ bytes: Uint8Array; cut: boolean }>;

/** The part of a robots.txt read: RFC 9309 asks crawlers to parse at least 500 KiB, and a longer file still has rules. */
const MAX_ROBOTS_BYTES = 500 * 1024;

/**
 * The site's robots.txt as it is kept between calls. Missing (4xx) allows
 * everything; unreachable (5xx, network error) allows nothing, as RFC 9309
 * says, with the reason. Redirects are followed on the same host only (http
 * → https): one to another host is taken as no robots.txt (RFC 9309's
 * "unavailable"), and said.
 */
async function readRobots(url: string, request: Request, readBody: ReadBody): Promise<SavedRobots> {
  try {
    let response = await request(url);
    for (let hops = 0; response.status >= 300 && response.status < 400 && hops < 5; hops += 1) {
      await response.body?.cancel();
      const location = response.headers.get("location");
      const target = location ? safeUrl(location, url) : undefined;
      if (!target) break;
      // Another scheme or port of the same host (http → https) is still the site's own robots.txt.
      if (new URL(target).hostname !== new URL(url).hostname) return { ignored: `it redirects to another host (${target}); not followed, so read as no robots.txt` };
      response = await request(target);
    }
    if (response.status >= 400 && response.status < 500) {
      await response.body?.cancel();
      return "allow-all";
    }
    if (!response.ok) {
      await response.body?.cancel();
      return { unreadable: `HTTP ${response.status}` };
    }
    const { bytes, cut } = await readBody(response, MAX_ROBOTS_BYTES, "robots.txt", true);
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
function robotsRules(saved: SavedRobots, agent: string): Robots {
  if (saved === "allow-all" || "ignored" in saved) return ALLOW_ALL;
  if ("unreadable" in saved) return { allows: () => false, sitemaps: [] };
  return parseRobots(saved.text, agent);
}

/** What the report says of robots.txt, when it is not simply read or absent. */
function robotsReport(saved: SavedRobots): string | undefined {
  if (saved === "allow-all") return undefined;
  if ("unreadable" in saved) return `robots.txt could not be read (${saved.unreadable}); RFC 9309 says to crawl nothing until it can`;
  if ("ignored" in saved) return `robots.txt ignored: ${saved.ignored}`;
  if (saved.cut) return `robots.txt is over ${formatBytes(MAX_ROBOTS_BYTES)}: only its first ${formatBytes(MAX_ROBOTS_BYTES)} were read, as RFC 9309 allows`;
  return undefined;
}

/** One sitemap's cap: sitemaps.org allows 50 MB uncompressed. */
const MAX_SITEMAP_BYTES = 50 * MB;

/**
 * Page URLs from the robots.txt `Sitemap:` lines (on the site's origin), else
 * `sitemap.xml` in the start folder; sitemap indexes followed up to the cap,
 * gzip expanded. [] when the site has no readable sitemap.
 */
async function readSitemaps(scope: CrawlScope, robots: Robots, limits: CrawlLimits, request: Request, readBody: ReadBody, result: Findings): Promise<string[]> {
  const declared = robots.sitemaps.map((url) => safeUrl(url, scope.origin)).filter((url): url is string => url !== undefined && new URL(url).origin === scope.origin);
  const toRead = declared.length > 0 ? declared : [`${scope.origin}${scope.prefix}sitemap.xml`];
  const pages: string[] = [];
  const read = new Set<string>();
  while (toRead.length > 0 && read.size < limits.maxSitemaps) {
    const url = toRead.shift() as string;
    if (read.has(url)) continue;
    read.add(url);
    let text: string;
    try {
      const response = await request(url);
      if (!response.ok) {
        await response.body?.cancel();
        // The default sitemap.xml missing is the ordinary case, not worth a line.
        if (declared.length > 0) result.skipped.push({ url, reason: `sitemap: HTTP ${response.status}` });
        continue;
      }
      const { bytes: body } = await readBody(response, MAX_SITEMAP_BYTES, "the sitemap");
      text = await decodeMaybeGzip(body, MAX_SITEMAP_BYTES);
    } catch (error) {
      if (error instanceof RunCapReached) throw error;
      result.skipped.push({ url, reason: `sitemap: ${fetchFailure(error, limits.timeoutMs)}` });
      continue;
    }
    const sitemap = parseSitemap(text);
    if (!sitemap) {
      if (declared.length > 0) result.skipped.push({ url, reason: "sitemap: not a sitemap (no <urlset> or <sitemapindex>)" });
      continue;
    }
    if (sitemap.kind === "index") {
      for (const location of sitemap.locations) {
        const next = safeUrl(location, url);
        if (next && new URL(next).origin === scope.origin) toRead.push(next);
      }
    } else {
      for (const location of sitemap.locations) {
        const page = safeUrl(location, url);
        if (page) pages.push(page);
      }
    }
  }
  for (const url of toRead) result.skipped.push({ url, reason: `sitemap not read: over the cap of ${limits.maxSitemaps} sitemaps` });
  return pages;
}

/** The text of a sitemap, gunzipped when it starts with gzip's magic bytes (`sitemap.xml.gz`), within `maxBytes` expanded. */
async function decodeMaybeGzip(body: Uint8Array, maxBytes: number): Promise<string> {
  if (!(body[0] === 0x1f && body[1] === 0x8b)) return new TextDecoder().decode(body);
  const stream = new Blob([body]).stream().pipeThrough(new DecompressionStream("gzip"));
  const reader = stream.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch (error) {
      // DecompressionStream's error for a stream cut short may have no message at all.
      throw new BodyRefused(`is not whole gzip (${(error instanceof Error && error.message) || "it ends early or is corrupt"})`);
    }
    const { done, value } = chunk;
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new BodyRefused(`expands past the ${formatBytes(maxBytes)} cap`);
    }
    parts.push(value);
  }
  return new TextDecoder().decode(concatBytes(parts, size));
}

/** `work`, or a TimeoutError when the signal fires first. */
function beforeDeadline<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(timeoutError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(timeoutError());
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

function timeoutError(): Error {
  const error = new Error("timed out");
  error.name = "TimeoutError";
  return error;
}

function safeUrl(href: string, base: string): string | undefined {
  try {
    const url = new URL(href, base);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** The page's charset from its content-type, utf-8 when absent or unknown to TextDecoder. */
function charsetOf(contentType: string): string {
  const charset = /charset=["']?([\w-]+)/i.exec(contentType)?.[1] ?? "utf-8";
  try {
    new TextDecoder(charset);
    return charset;
  } catch {
    return "utf-8";
  }
}

/** Why a request failed, in words: a timeout names the cap. */
function fetchFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof BodyRefused) return error.message;
  const name = error instanceof Error ? error.name : "";
  if (name === "TimeoutError" || name === "AbortError") return `timed out after ${timeoutMs / 1000} s`;
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : "";
  return `could not be fetched (${message}${cause})`;
}

/**
 * Bytes for a person.
 *
 * @example formatBytes(5 * 1024 * 1024) // "5 MB"
 */
export function formatBytes(bytes: number): string {
  if (bytes >= MB) return `${Math.round((bytes / MB) * 10) / 10} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} B`;
}
