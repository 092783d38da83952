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
import { formatBytes } from "../http.ts";
import { CrawlClient, RunCapReached } from "./crawl-client.ts";
import { readRobots, readSitemaps, robotsReport, robotsRules, type SavedRobots } from "./discovery.ts";
import { fetchPage, type CrawledPage, type PageReading, type PageValidator, type SkippedUrl } from "./fetch-page.ts";
import { Frontier } from "./frontier.ts";
import { scopeOf } from "./scope.ts";

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

/** Progress lines every this many pages. */
const PROGRESS_EVERY = 25;

/**
 * Crawls the site under `options.start`, or carries on from `options.resume`.
 * Never throws for a page: each one that cannot be read is in `skipped` with
 * its reason. Throws a plain Error only when the start URL is not http(s).
 */
export async function crawlSite(options: CrawlOptions): Promise<CrawlResult> {
  const limits = { ...DEFAULT_CRAWL_LIMITS, ...options.limits };
  const scope = scopeOf(options.start);
  const resume = options.resume;
  const client = new CrawlClient({ fetch: options.fetch, userAgent: options.userAgent, timeoutMs: limits.timeoutMs, maxRunBytes: limits.maxRunBytes }, resume?.requests, resume?.bytes);
  const result: Omit<CrawlResult, "state" | "done" | "requests" | "bytes"> = { source: resume?.source ?? "links", pages: [], skipped: [] };
  const skip = (skipped: SkippedUrl) => void result.skipped.push(skipped);

  const robotsUrl = `${scope.origin}/robots.txt`;
  const savedRobots = resume ? resume.robots : await readRobots(robotsUrl, client);
  // Said once, by the call that tried to read it; resumed calls still crawl nothing.
  if (!resume) {
    const said = robotsReport(savedRobots);
    if (said) skip({ url: robotsUrl, reason: said });
  }
  const robots = robotsRules(savedRobots, options.userAgent.split(/[\s/]/)[0] ?? options.userAgent);
  const delaySeconds = Math.min(robots.crawlDelaySeconds ?? 0, limits.maxCrawlDelaySeconds);
  const concurrency = delaySeconds > 0 ? 1 : Math.max(1, limits.concurrency);
  const frontier = new Frontier(scope, robots, options, skip, resume ?? {});
  const { queue } = frontier;

  let started = resume?.started ?? 0;
  /** Pages waiting for their second try, with why the first failed. */
  const retried = new Map<string, string>(resume?.retried);
  /** Page requests of this call, against `options.requestBudget`. */
  let spent = 0;
  const budget = options.requestBudget ?? Number.POSITIVE_INFINITY;
  const reading: PageReading = {
    client,
    frontier,
    maxPageBytes: limits.maxPageBytes,
    maxRedirects: limits.maxRedirects,
    contentSelector: options.contentSelector,
    publicUrl: options.publicUrl,
    onRedirect: () => void (spent += 1),
  };

  const crawlOne = async (url: string): Promise<void> => {
    const outcome = await fetchPage(url, options.validators?.get(url), reading);
    if ("skipped" in outcome) {
      // A timeout or a dropped connection may be the moment (the thread was busy parsing other pages): one more try, last in line.
      if (outcome.skipped.transient && !retried.has(url)) {
        retried.set(url, outcome.skipped.reason);
        started -= 1;
        queue.push(url);
        return;
      }
      const { transient, ...skipped } = outcome.skipped;
      skip(transient ? { ...skipped, reason: `${skipped.reason}, tried twice` } : skipped);
      return;
    }
    result.pages.push(outcome.page);
    if (result.source === "links" && !options.only) for (const link of outcome.page.links) frontier.add(link, false);
    if (options.onProgress && result.pages.length % PROGRESS_EVERY === 0) {
      options.onProgress(`read ${result.pages.length} pages (${queue.size} queued, ${formatBytes(client.bytes)})`);
    }
  };

  let inFlight = 0;
  let lastRequestAt = 0;
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

  try {
    if (!resume && options.only) {
      for (const url of options.only) frontier.add(url, true);
    } else if (!resume) {
      const sitemaps = await readSitemaps(scope, robots, limits.maxSitemaps, client);
      result.skipped.push(...sitemaps.skipped);
      if (sitemaps.pages.length > 0) result.source = "sitemap";
      // A loop, not push(...pages): a sitemap index may list 200,000 URLs, past the arguments a call can take.
      for (const url of sitemaps.pages.length > 0 ? sitemaps.pages : [scope.start]) frontier.add(url, true);
    }
    await Promise.all(Array.from({ length: concurrency }, worker));
    if (result.stoppedBy) {
      for (const url of queue.takeAll()) {
        const first = retried.get(url);
        skip({ url, reason: first ? `${first}; not tried again: the crawl stopped at ${result.stoppedBy}` : `not read: the crawl stopped at ${result.stoppedBy}` });
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
    seen: [...frontier.seen],
    started,
    retried: [...retried],
    requests: client.requests,
    bytes: client.bytes,
  };
  return { ...result, requests: client.requests, bytes: client.bytes, state, done: result.stoppedBy !== undefined || queue.size === 0 };
}
