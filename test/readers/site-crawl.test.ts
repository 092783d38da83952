// The crawler and ingestSite inside workerd against real D1, driven by a site the test builds:
// a fetch function answering real Response objects (Workers cannot open a server to crawl).
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { crawlSite, type CrawlOptions, type CrawlResult } from "../../src/readers/site/crawl.ts";
import { planSiteRun, type SiteRunRequest } from "../../src/documents/ingest/plan-site-run.ts";
import { ingestSite } from "../../src/documents/ingest/site-run.ts";
import { findDocuments } from "../../src/documents/read/stored-documents.ts";

const UA = "Almanac/0.0.0-test (documentation crawler)";

interface Page {
  body: string | (() => Response);
  type?: string;
  etag?: string;
}

/** A site as a fetch function: paths to pages, with ETags honoured; every request recorded. */
function site(origin: string, pages: Record<string, Page>) {
  const requests: { url: string; headers: Headers }[] = [];
  const fetcher = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers = new Headers(init?.headers);
    requests.push({ url: url.href, headers });
    if (url.origin !== origin) throw new TypeError(`fetch failed: ${url.origin} is not this site`);
    const page = pages[url.pathname];
    if (!page) return new Response("not found", { status: 404 });
    if (typeof page.body === "function") return page.body();
    if (page.etag && headers.get("if-none-match") === page.etag) return new Response(null, { status: 304, headers: { etag: page.etag } });
    return new Response(page.body, { headers: { "content-type": page.type ?? "text/html; charset=utf-8", ...(page.etag ? { etag: page.etag } : {}) } });
  }) as typeof fetch;
  return { fetch: fetcher, requests };
}

const html = (title: string, body: string) => `<html><head><title>${title}</title></head><body><nav><a href="/docs/">Home</a></nav><main><h1>${title}</h1>${body}</main></body></html>`;

describe("crawling", () => {
  it("follows links within the start folder, sends the User-Agent, honours robots.txt and skips non-HTML", async () => {
    const { fetch, requests } = site("https://docs.test", {
      "/robots.txt": { body: "User-agent: *\nDisallow: /docs/private", type: "text/plain" },
      "/docs/": { body: html("Home", `<a href="guide.html">Guide</a> <a href="/blog/">Blog</a> <a href="private/x.html">P</a> <a href="data.bin">D</a> <a href="logo.png">L</a>`) },
      "/docs/guide.html": { body: html("Guide", `<p>Text.</p><a href="https://other.test/docs/">Other host</a>`) },
      "/docs/data.bin": { body: "binary", type: "application/octet-stream" },
    });
    const result = await crawlSite({ start: "https://docs.test/docs/", fetch, userAgent: UA });
    expect(result.source).toBe("links");
    expect(result.pages.map((page) => page.url)).toEqual(["https://docs.test/docs/", "https://docs.test/docs/guide.html"]);
    expect(result.skipped).toEqual(
      expect.arrayContaining([
        { url: "https://docs.test/docs/private/x.html", reason: "disallowed by robots.txt" },
        { url: "https://docs.test/docs/data.bin", reason: "not HTML (application/octet-stream)" },
        { url: "https://docs.test/docs/logo.png", reason: "not a page (.png)" },
      ]),
    );
    expect(requests.some((request) => request.url.includes("/blog/") || request.url.includes("other.test"))).toBe(false);
    expect(requests.every((request) => request.headers.get("user-agent") === UA)).toBe(true);
  });

  it("takes pages from the sitemap robots.txt names, following a gzipped sitemap index", async () => {
    const gzip = async (text: string) => new Uint8Array(await new Response(new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer());
    const pagesXml = await gzip(`<urlset><url><loc>https://docs.test/a</loc></url><url><loc>https://docs.test/b</loc></url><url><loc>https://elsewhere.test/c</loc></url></urlset>`);
    const { fetch } = site("https://docs.test", {
      "/robots.txt": { body: "Sitemap: https://docs.test/index.xml", type: "text/plain" },
      "/index.xml": { body: "<sitemapindex><sitemap><loc>https://docs.test/pages.xml.gz</loc></sitemap></sitemapindex>", type: "application/xml" },
      "/pages.xml.gz": { body: () => new Response(pagesXml, { headers: { "content-type": "application/gzip" } }) },
      "/a": { body: html("A", "<p>a</p>") },
      "/b": { body: html("B", "<p>b <a href='/not-in-sitemap'>x</a></p>") },
    });
    const result = await crawlSite({ start: "https://docs.test/", fetch, userAgent: UA });
    expect(result.source).toBe("sitemap");
    expect(result.pages.map((page) => page.url)).toEqual(["https://docs.test/a", "https://docs.test/b"]);
    expect(result.skipped).toEqual([{ url: "https://elsewhere.test/c", reason: "outside https://docs.test/" }]);
  });

  it("says why a gzipped sitemap cut short cannot be read, and falls back to links", async () => {
    const gzip = async (text: string) => new Uint8Array(await new Response(new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer());
    const whole = await gzip(`<urlset>${Array.from({ length: 200 }, (_, index) => `<url><loc>https://docs.test/p${index}</loc></url>`).join("")}</urlset>`);
    const { fetch } = site("https://docs.test", {
      "/robots.txt": { body: "Sitemap: https://docs.test/pages.xml.gz", type: "text/plain" },
      "/pages.xml.gz": { body: () => new Response(whole.slice(0, Math.floor(whole.length / 2)), { headers: { "content-type": "application/gzip" } }) },
      "/": { body: html("Home", "<p>Home.</p>") },
    });
    const result = await crawlSite({ start: "https://docs.test/", fetch, userAgent: UA });
    expect(result.source).toBe("links");
    const reason = result.skipped.find((skip) => skip.url === "https://docs.test/pages.xml.gz")?.reason;
    expect(reason).toMatch(/^sitemap: is not whole gzip \(.+\)$/);
  });

  it("stops at --max-pages on endless generated links and says so", async () => {
    const endless = () => {
      const n = Math.floor(Math.random() * 1e9);
      return new Response(html(`Page ${n}`, `<a href="/gen/${n}-a">a</a><a href="/gen/${n}-b">b</a>`), { headers: { "content-type": "text/html" } });
    };
    const fetcher = (async (input: RequestInfo | URL) => {
      const url = new URL(String(input));
      if (url.pathname === "/robots.txt") return new Response("", { status: 404 });
      return endless();
    }) as typeof fetch;
    const result = await crawlSite({ start: "https://gen.test/gen/", fetch: fetcher, userAgent: UA, limits: { maxPages: 12 } });
    expect(result.pages).toHaveLength(12);
    expect(result.stoppedBy).toBe("--max-pages 12");
    expect(result.skipped.some((skip) => skip.reason === "not read: the crawl stopped at --max-pages 12")).toBe(true);
  });

  it("reports the rest of a 200,000-URL sitemap index when --max-pages stops it (issue 39, row 4: push(...queue) overflowed the stack)", async () => {
    const sitemapOf = (part: number) =>
      `<urlset>${Array.from({ length: 50_000 }, (_, index) => `<url><loc>https://big.test/p${part}-${index}</loc></url>`).join("")}</urlset>`;
    const pages: Record<string, Page> = {
      "/sitemap.xml": { body: `<sitemapindex>${[1, 2, 3, 4].map((part) => `<sitemap><loc>https://big.test/s${part}.xml</loc></sitemap>`).join("")}</sitemapindex>`, type: "application/xml" },
    };
    for (const part of [1, 2, 3, 4]) pages[`/s${part}.xml`] = { body: sitemapOf(part), type: "application/xml" };
    const fetcher = site("https://big.test", pages).fetch;
    const anyPage = (async (input: RequestInfo | URL, init?: RequestInit) =>
      /\/p\d-\d+$/.test(String(input)) ? new Response(html("P", "<p>p</p>"), { headers: { "content-type": "text/html" } }) : fetcher(input, init)) as typeof fetch;
    const result = await crawlSite({ start: "https://big.test/", fetch: anyPage, userAgent: UA, limits: { maxPages: 10 } });
    expect(result.source).toBe("sitemap");
    expect(result.pages).toHaveLength(10);
    expect(result.stoppedBy).toBe("--max-pages 10");
    const notRead = result.skipped.filter((skip) => skip.reason === "not read: the crawl stopped at --max-pages 10");
    expect(notRead).toHaveLength(199_990);
    expect(notRead.at(-1)?.url).toBe("https://big.test/p4-49999");
    expect(result.state.queue).toEqual([]);
  });

  it("follows a redirect within the origin, refuses one to another host, and caps a page's size and time", async () => {
    const { fetch } = site("https://docs.test", {
      "/": { body: html("Home", `<a href="/moved">m</a><a href="/away">a</a><a href="/huge">h</a><a href="/slow">s</a>`) },
      "/moved": { body: () => new Response(null, { status: 301, headers: { location: "/new-home" } }) },
      "/new-home": { body: html("New home", "<p>here now</p>") },
      "/away": { body: () => new Response(null, { status: 302, headers: { location: "https://evil.test/" } }) },
      "/huge": { body: () => new Response(new Uint8Array(3 * 1024 * 1024).fill(97), { headers: { "content-type": "text/html" } }) },
      "/slow": {
        // Headers at once, then a body that never ends.
        body: () => new Response(new ReadableStream({ start: (controller) => controller.enqueue(new TextEncoder().encode("<html><body><main><p>starting")) }), { headers: { "content-type": "text/html" } }),
      },
    });
    const result = await crawlSite({ start: "https://docs.test/", fetch, userAgent: UA, limits: { maxPageBytes: 1024 * 1024, timeoutMs: 1500 } });
    expect(result.pages.map((page) => page.url)).toEqual(["https://docs.test/", "https://docs.test/moved"]);
    const reasons = Object.fromEntries(result.skipped.map((skip) => [skip.url, skip.reason]));
    expect(reasons).toEqual({
      "https://docs.test/away": "redirects to another host (https://evil.test/); not followed",
      // The navigation's link to /docs/, which this site does not have.
      "https://docs.test/docs/": "HTTP 404",
      "https://docs.test/huge": "the page is over the 1 MB cap",
      "https://docs.test/slow": "timed out after 1.5 s, tried twice",
    });
  });

  it("reads a page nested 3,000 levels beside the others, and skips a page the reader cannot take, naming it (issue 39, row 3)", async () => {
    const { fetch } = site("https://deep.test", {
      "/": { body: html("Home", `<a href="/deep">Deep</a><a href="/plain">Plain</a>`) },
      "/deep": { body: html("Deep", `<p>Above.</p>${"<div>".repeat(3_000)}below`) },
      "/plain": { body: html("Plain", "<p>Plain.</p>") },
    });
    const deep = await crawlSite({ start: "https://deep.test/", fetch, userAgent: UA });
    expect(deep.pages.map((page) => page.url)).toEqual(["https://deep.test/", "https://deep.test/deep", "https://deep.test/plain"]);
    const deepPage = deep.pages.find((page) => page.url === "https://deep.test/deep");
    expect(deepPage?.status === "fetched" && deepPage.page.markdown).toBe("# Deep {#intro-part-2}\n\nAbove.");
    // A content selector hast-util-select cannot parse throws for every page: each is skipped with its URL, the crawl ends.
    const unreadable = await crawlSite({ start: "https://deep.test/", fetch, userAgent: UA, contentSelector: "main[" });
    expect(unreadable.pages).toEqual([]);
    expect(unreadable.skipped).toEqual([{ url: "https://deep.test/", reason: expect.stringMatching(/^could not be read as HTML \(.+\)$/) }]);
  });

  it("crawls nothing when robots.txt cannot be read, as RFC 9309 says", async () => {
    const { fetch } = site("https://down.test", { "/robots.txt": { body: () => new Response("oops", { status: 503 }) }, "/": { body: html("Home", "") } });
    const result = await crawlSite({ start: "https://down.test/", fetch, userAgent: UA });
    expect(result.pages).toEqual([]);
    expect(result.skipped[0]?.reason).toMatch(/robots\.txt could not be read \(HTTP 503\)/);
  });

  it("reads the first 500 KiB of a longer robots.txt and says so, where it used to block the whole site (issue 39, row 9)", async () => {
    // 600 KiB: the rules that matter first, filler, a rule cut at 500 KiB right after "Allow: /docs/private/"
    // (kept, it would allow /docs/private/x), and a rule past the cut.
    const head = "User-agent: *\nDisallow: /docs/private\n";
    const fillerLine = "Disallow: /never-linked-page-of-filler\n";
    const filler = fillerLine.repeat(Math.ceil((500 * 1024) / fillerLine.length)).slice(0, 500 * 1024 - head.length - "\nAllow: /docs/private/".length);
    const robots = `${head}${filler}\nAllow: /docs/private/only-this-page\nDisallow: /docs/late\n${"#".repeat(100 * 1024)}`;
    const { fetch } = site("https://big.test", {
      "/robots.txt": { body: robots, type: "text/plain" },
      "/docs/": { body: html("Home", `<a href="private/x">P</a><a href="late">L</a>`) },
      "/docs/late": { body: html("Late", "<p>Past the cut.</p>") },
    });
    const result = await crawlSite({ start: "https://big.test/docs/", fetch, userAgent: UA });
    expect(result.pages.map((page) => page.url)).toEqual(["https://big.test/docs/", "https://big.test/docs/late"]);
    expect(result.skipped).toEqual(
      expect.arrayContaining([
        { url: "https://big.test/robots.txt", reason: "robots.txt is over 500 KB: only its first 500 KB were read, as RFC 9309 allows" },
        { url: "https://big.test/docs/private/x", reason: "disallowed by robots.txt" },
      ]),
    );
  });

  it("does not follow robots.txt to another host: read as none, and said (issue 39, row 8)", async () => {
    const { fetch, requests } = site("https://moved.test", {
      "/robots.txt": { body: () => new Response(null, { status: 301, headers: { location: "https://tracker.test/robots.txt" } }) },
      "/": { body: html("Home", "<p>Home.</p>") },
    });
    const result = await crawlSite({ start: "https://moved.test/", fetch, userAgent: UA });
    expect(requests.some((request) => request.url.startsWith("https://tracker.test"))).toBe(false);
    expect(result.pages.map((page) => page.url)).toEqual(["https://moved.test/"]);
    expect(result.skipped).toContainEqual({
      url: "https://moved.test/robots.txt",
      reason: "robots.txt ignored: it redirects to another host (https://tracker.test/robots.txt); not followed, so read as no robots.txt",
    });
    expect(result.state.robots).toEqual({ ignored: "it redirects to another host (https://tracker.test/robots.txt); not followed, so read as no robots.txt" });
  });

  it("still follows robots.txt from http to https on the same host", async () => {
    const fetcher = (async (input: RequestInfo | URL) => {
      const url = new URL(String(input));
      if (url.href === "http://upgrade.test/robots.txt") return new Response(null, { status: 301, headers: { location: "https://upgrade.test/robots.txt" } });
      if (url.href === "https://upgrade.test/robots.txt") return new Response("User-agent: *\nDisallow: /private", { headers: { "content-type": "text/plain" } });
      if (url.pathname === "/") return new Response(html("Home", `<a href="/private">P</a>`), { headers: { "content-type": "text/html" } });
      return new Response("not found", { status: 404 });
    }) as typeof fetch;
    const result = await crawlSite({ start: "http://upgrade.test/", fetch: fetcher, userAgent: UA });
    expect(result.skipped).toContainEqual({ url: "http://upgrade.test/private", reason: "disallowed by robots.txt" });
  });
});

/** A crawl in calls of `budget` page requests, its state through JSON between them as a Workflow step's result is. */
async function crawlInPieces(options: CrawlOptions, budget: number) {
  const calls: CrawlResult[] = [];
  for (let call = 0; call < 50; call += 1) {
    const resume = calls.at(-1)?.state;
    const result = await crawlSite({ ...options, requestBudget: budget, ...(resume ? { resume: JSON.parse(JSON.stringify(resume)) } : {}) });
    calls.push(result);
    if (result.done) break;
  }
  return {
    calls,
    pages: calls.flatMap((call) => call.pages.map((page) => page.url)).sort(),
    skipped: calls.flatMap((call) => call.skipped).sort((a, b) => a.url.localeCompare(b.url)),
  };
}

/** The requests for pages, not robots.txt or sitemaps. */
const pageRequests = (requests: { url: string }[]) => requests.filter((request) => !/robots\.txt$|sitemap\.xml$/.test(request.url));

describe("crawling in pieces", () => {
  const linkedSite = (): Record<string, Page> => ({
    "/robots.txt": { body: "# keep out\nUser-agent: *\nDisallow: /docs/private", type: "text/plain" },
    "/docs/": { body: html("Home", `<a href="a.html">A</a><a href="b.html">B</a><a href="c.html">C</a>`) },
    "/docs/a.html": { body: html("A", `<a href="d.html">D</a><a href="e.html">E</a><a href="logo.png">L</a>`) },
    "/docs/b.html": { body: html("B", `<a href="f.html">F</a><a href="missing.html">M</a>`) },
    // Read in a later call: its links still meet robots.txt.
    "/docs/c.html": { body: html("C", `<a href="private/x.html">X</a><a href="g.html">G</a>`) },
    "/docs/d.html": { body: html("D", `<a href="g.html">G</a>`) },
    "/docs/e.html": { body: html("E", `<a href="data.bin">bin</a>`) },
    "/docs/f.html": { body: html("F", "<p>f</p>") },
    "/docs/g.html": { body: html("G", `<a href="private/y.html">Y</a>`) },
    "/docs/data.bin": { body: "binary", type: "application/octet-stream" },
  });

  it("reads a link-following site in calls of 3 requests as one whole crawl does, asking robots.txt once", async () => {
    const start = "https://docs.test/docs/";
    const whole = await crawlSite({ start, fetch: site("https://docs.test", linkedSite()).fetch, userAgent: UA });
    expect(whole.done).toBe(true);
    expect(whole.state.queue).toEqual([]);

    const { fetch, requests } = site("https://docs.test", linkedSite());
    const pieces = await crawlInPieces({ start, fetch, userAgent: UA }, 3);
    expect(pieces.pages).toEqual(whole.pages.map((page) => page.url));
    expect(pieces.skipped).toEqual([...whole.skipped].sort((a, b) => a.url.localeCompare(b.url)));
    expect(pieces.skipped).toEqual(
      expect.arrayContaining([
        { url: "https://docs.test/docs/private/x.html", reason: "disallowed by robots.txt" },
        { url: "https://docs.test/docs/private/y.html", reason: "disallowed by robots.txt" },
      ]),
    );
    // The disallowed links were found by resumed calls, which did not ask robots.txt again.
    expect(pieces.calls[0]?.skipped.some((skip) => skip.url.includes("/private/"))).toBe(false);
    expect(requests.filter((request) => request.url.endsWith("/robots.txt"))).toHaveLength(1);
    expect(pieces.calls.length).toBeGreaterThanOrEqual(3);
    expect(pieces.calls.map((call) => call.done)).toEqual([...pieces.calls.slice(1).map(() => false), true]);
    // Each call started at most 3 page requests; the totals run over the whole crawl.
    const perCall = pieces.calls.map((call, index) => pageRequests(requests.slice(pieces.calls[index - 1]?.requests ?? 0, call.requests)).length);
    expect(Math.max(...perCall)).toBeLessThanOrEqual(3);
    expect(pieces.calls.at(-1)?.requests).toBe(requests.length);
    expect(pieces.calls.at(-1)?.bytes).toBe(whole.bytes);
  });

  it("reads a sitemap site in calls of 3 requests as one whole crawl does, asking sitemaps only in the first", async () => {
    const pages: Record<string, Page> = {
      "/robots.txt": { body: "User-agent: *\nDisallow: /secret\nSitemap: https://docs.test/sitemap.xml", type: "text/plain" },
      "/sitemap.xml": {
        body: `<urlset>${["/p1", "/p2", "/p3", "/p4", "/p5", "/p6", "/p7", "/gone", "/secret/s", "https://elsewhere.test/x"].map((path) => `<url><loc>${path.startsWith("/") ? `https://docs.test${path}` : path}</loc></url>`).join("")}</urlset>`,
        type: "application/xml",
      },
      ...Object.fromEntries(["/p1", "/p2", "/p3", "/p4", "/p5", "/p6", "/p7"].map((path) => [path, { body: html(path, `<p>${path}</p><a href="/not-listed">n</a>`) }])),
    };
    const whole = await crawlSite({ start: "https://docs.test/", fetch: site("https://docs.test", pages).fetch, userAgent: UA });
    const { fetch, requests } = site("https://docs.test", pages);
    const pieces = await crawlInPieces({ start: "https://docs.test/", fetch, userAgent: UA }, 3);
    expect(pieces.calls.map((call) => call.source)).toEqual(pieces.calls.map(() => "sitemap"));
    expect(pieces.pages).toEqual(whole.pages.map((page) => page.url));
    expect(pieces.pages).toHaveLength(7);
    expect(pieces.skipped).toEqual([...whole.skipped].sort((a, b) => a.url.localeCompare(b.url)));
    expect(pieces.skipped.map((skip) => skip.reason).sort()).toEqual(["HTTP 404", "disallowed by robots.txt", "outside https://docs.test/"]);
    expect(pieces.calls).toHaveLength(3);
    expect(requests.filter((request) => /robots\.txt$|sitemap\.xml$/.test(request.url))).toHaveLength(2);
  });

  it("counts a redirect hop against the call's budget", async () => {
    const { fetch } = site("https://docs.test", {
      "/": { body: html("Home", `<a href="/a">a</a><a href="/b">b</a>`) },
      "/a": { body: () => new Response(null, { status: 301, headers: { location: "/a2" } }) },
      "/a2": { body: html("A2", "<p>a</p>") },
      "/b": { body: html("B", "<p>b</p>") },
    });
    // Home, the navigation's /docs/ (a 404), /a and its hop to /a2: four requests, so /b waits.
    const first = await crawlSite({ start: "https://docs.test/", fetch, userAgent: UA, limits: { concurrency: 1 }, requestBudget: 4 });
    expect(first.pages.map((page) => page.url)).toEqual(["https://docs.test/", "https://docs.test/a"]);
    expect(first).toMatchObject({ done: false, state: { queue: ["https://docs.test/b"] } });
  });

  it("stops at --max-pages counted over all the calls", async () => {
    const fetcher = (async (input: RequestInfo | URL) => {
      const url = new URL(String(input));
      if (url.pathname === "/robots.txt") return new Response("", { status: 404 });
      return new Response(html(url.pathname, `<a href="${url.pathname}-a">a</a><a href="${url.pathname}-b">b</a>`), { headers: { "content-type": "text/html" } });
    }) as typeof fetch;
    const { calls, pages } = await crawlInPieces({ start: "https://gen.test/gen/", fetch: fetcher, userAgent: UA, limits: { maxPages: 7 } }, 3);
    expect(pages).toHaveLength(7);
    expect(calls.map((call) => [call.pages.length, call.done, call.stoppedBy])).toEqual([
      [3, false, undefined],
      [3, false, undefined],
      [1, true, "--max-pages 7"],
    ]);
    const last = calls.at(-1) as CrawlResult;
    expect(last.skipped.length).toBeGreaterThan(0);
    expect(last.skipped.every((skip) => skip.reason === "not read: the crawl stopped at --max-pages 7")).toBe(true);
    expect(last.state.queue).toEqual([]);
  });

  it("retries a transient failure in a later call, once", async () => {
    let flakyTries = 0;
    const { fetch, requests } = site("https://docs.test", {
      "/": { body: html("Home", `<a href="/flaky">f</a><a href="/down">d</a>`) },
      "/flaky": {
        body: () => {
          flakyTries += 1;
          if (flakyTries === 1) throw new TypeError("fetch failed");
          return new Response(html("Flaky", "<p>back</p>"), { headers: { "content-type": "text/html" } });
        },
      },
      "/down": {
        body: () => {
          throw new TypeError("fetch failed");
        },
      },
    });
    const { calls, pages, skipped } = await crawlInPieces({ start: "https://docs.test/", fetch, userAgent: UA, limits: { concurrency: 1 } }, 1);
    // Home, then /flaky and /down fail, then the retries of both (the navigation's /docs/ between).
    const flakyFailedIn = calls.findIndex((call) => call.state.retried.some(([url]) => url === "https://docs.test/flaky"));
    const flakyReadIn = calls.findIndex((call) => call.pages.some((page) => page.url === "https://docs.test/flaky"));
    expect(flakyFailedIn).toBeGreaterThan(0);
    expect(flakyReadIn).toBeGreaterThan(flakyFailedIn);
    expect(calls[flakyFailedIn]?.state.queue.at(-1)).toBe("https://docs.test/flaky");
    expect(pages).toEqual(["https://docs.test/", "https://docs.test/flaky"]);
    expect(skipped).toEqual([
      { url: "https://docs.test/docs/", reason: "HTTP 404", gone: true },
      { url: "https://docs.test/down", reason: "could not be fetched (fetch failed), tried twice" },
    ]);
    expect(requests.filter((request) => request.url.endsWith("/down"))).toHaveLength(2);
  });

  it("reports an unreadable robots.txt once and crawls nothing", async () => {
    const { fetch, requests } = site("https://down.test", { "/robots.txt": { body: () => new Response("oops", { status: 503 }) }, "/": { body: html("Home", "") } });
    const first = await crawlSite({ start: "https://down.test/", fetch, userAgent: UA, requestBudget: 3 });
    expect(first).toMatchObject({ done: true, pages: [], state: { robots: { unreadable: "HTTP 503" }, queue: [] } });
    expect(first.skipped.map((skip) => skip.url)).toEqual(["https://down.test/robots.txt", "https://down.test/"]);
    const before = requests.length;
    const again = await crawlSite({ start: "https://down.test/", fetch, userAgent: UA, requestBudget: 3, resume: JSON.parse(JSON.stringify(first.state)) });
    expect(again).toMatchObject({ done: true, pages: [], skipped: [] });
    expect(requests.length).toBe(before);
  });
});

describe("ingesting a site into D1", () => {
  const ingest = (request: SiteRunRequest) => ingestSite(env.DB, planSiteRun(request));
  const pages = (guide: string): Record<string, Page> => ({
    "/docs/": { body: html("Home", `<p>Welcome.</p><a href="guide">Guide</a><a href="old">Old</a>`), etag: '"home-1"' },
    "/docs/guide": { body: html("Guide", guide), etag: `"guide-${guide.length}"` },
    "/docs/old": { body: `<html><head><link rel="canonical" href="https://evil.test/x"></head><body><main><h1>Old</h1><p>Old page.</p></main></body></html>`, etag: '"old-1"' },
  });

  it("names pages by their public URL, asks conditionally the second time, and prunes pages gone from the site", async () => {
    const options = { start: "http://mirror.test/docs/", baseUri: "https://docs.example.org/docs", prune: true, userAgent: UA };
    const first = await ingest({ ...options, fetch: site("http://mirror.test", pages("<h2 id='setup'>Set up</h2><p>Run it.</p>")).fetch });
    expect(first.added.sort()).toEqual(["documents/docs.example.org/docs", "documents/docs.example.org/docs/guide", "documents/docs.example.org/docs/old"]);
    expect(first.notes).toEqual([{ url: "http://mirror.test/docs/old", note: "canonical https://evil.test/x ignored: not under http://mirror.test/docs/" }]);
    const guide = (await findDocuments(env.DB, ["documents/docs.example.org/docs/guide"])).get("documents/docs.example.org/docs/guide");
    expect(guide).toMatchObject({ uri: "https://docs.example.org/docs/guide", content: "# Guide {#intro-part-2}\n\n## Set up {#setup}\n\nRun it." });

    const second = site("http://mirror.test", pages("<h2 id='setup'>Set up</h2><p>Run it.</p>"));
    const again = await ingest({ ...options, fetch: second.fetch });
    expect(again).toMatchObject({ added: [], updated: [], removed: [], notModified: 3, fetched: 0 });
    expect(again.unchanged).toHaveLength(3);
    expect(second.requests.filter((request) => !request.url.endsWith("robots.txt") && !request.url.endsWith("sitemap.xml")).every((request) => request.headers.has("if-none-match"))).toBe(true);

    const changed = pages("<h2 id='setup'>Set up</h2><p>Run it twice.</p>");
    delete changed["/docs/old"];
    const third = await ingest({ ...options, fetch: site("http://mirror.test", changed).fetch });
    expect(third).toMatchObject({ updated: ["documents/docs.example.org/docs/guide"], removed: ["documents/docs.example.org/docs/old"], notModified: 1 });
  });

  it("never lets a canonical link take another page's name: a lying one is ignored, a true copy is still one page (issue 39, row 14)", async () => {
    const withCanonical = (canonical: string, title: string, body: string) =>
      `<html><head><link rel="canonical" href="${canonical}"></head><body><main><h1>${title}</h1>${body}</main></body></html>`;
    const { fetch } = site("https://canon.test", {
      "/docs/": { body: html("Home", `<p>Welcome.</p><a href="a-liar">A</a><a href="index.html">I</a><a href="zeta">Z</a>`) },
      // Sorted before /docs/zeta, it used to take zeta's name and zeta was dropped as "the same page".
      "/docs/a-liar": { body: withCanonical("https://canon.test/docs/zeta", "Liar", "<p>Not zeta at all.</p>") },
      "/docs/zeta": { body: html("Zeta", "<p>The real zeta.</p>") },
      // A true copy of the home page, as index.html often is.
      "/docs/index.html": { body: html("Home", `<p>Welcome.</p><a href="a-liar">A</a><a href="index.html">I</a><a href="zeta">Z</a>`).replace("<head>", '<head><link rel="canonical" href="/docs/">') },
    });
    const result = await ingest({ start: "https://canon.test/docs/", fetch, prune: false, userAgent: UA });
    expect(result.added.sort()).toEqual(["documents/canon.test/docs", "documents/canon.test/docs/a-liar", "documents/canon.test/docs/zeta"]);
    const zeta = (await findDocuments(env.DB, ["documents/canon.test/docs/zeta"])).get("documents/canon.test/docs/zeta");
    expect(zeta?.content).toBe("# Zeta {#intro-part-2}\n\nThe real zeta.");
    expect(result.notes).toEqual([
      { url: "https://canon.test/docs/a-liar", note: "canonical https://canon.test/docs/zeta ignored: https://canon.test/docs/zeta was read on its own, with other text" },
    ]);
    expect(result.skipped).toContainEqual({ url: "https://canon.test/docs/index.html", reason: "the same page as https://canon.test/docs/ (its canonical link)" });
  });

  it("an unattended run (refuseFailingSite) publishes nothing from a site failing more than 1 page in 10; a person's run publishes what it read", async () => {
    const failing = (down: boolean): Record<string, Page> => ({
      "/docs/": { body: html("Home", `<p>Welcome.</p>${Array.from({ length: 6 }, (_, i) => `<a href="p${i}">P${i}</a>`).join("")}`) },
      ...Object.fromEntries(
        Array.from({ length: 6 }, (_, i) => [`/docs/p${i}`, { body: down && i >= 3 ? () => new Response("down", { status: 503 }) : html(`P${i}`, `<p>Page ${i}${down ? " again" : ""}.</p>`) }]),
      ),
    });
    const options = { start: "https://failing.test/docs/", prune: true, userAgent: UA };
    await ingest({ ...options, fetch: site("https://failing.test", failing(false)).fetch });
    await expect(ingest({ ...options, refuseFailingSite: true, fetch: site("https://failing.test", failing(true)).fetch })).rejects.toThrow(
      /^the site failed to serve 3 of the 7 pages asked for \(https:\/\/failing\.test\/docs\/p3: HTTP 503.*nothing was published and the previous pages are still served/,
    );
    const p0 = "documents/failing.test/docs/p0";
    expect((await findDocuments(env.DB, [p0])).get(p0)?.content).toBe("# P0 {#intro-part-2}\n\nPage 0.");
    const manual = await ingest({ ...options, fetch: site("https://failing.test", failing(true)).fetch });
    expect(manual.updated).toContain(p0);
  });

  it("stores a folder's index page once, under the folder's name without a trailing slash", async () => {
    const { fetch } = site("https://one-name.test", {
      "/": { body: html("Home", `<p>Welcome home.</p><a href="index.html">Home again</a> <a href="guide/">Guide</a>`) },
      "/index.html": { body: html("Home", `<p>Welcome home.</p><a href="guide/index.html">Guide</a>`) },
      "/guide/": { body: html("Guide", `<p>The guide.</p>`) },
      "/guide/index.html": { body: html("Guide", `<p>The guide.</p>`) },
    });
    const result = await ingest({ start: "https://one-name.test/", prune: true, userAgent: UA, fetch });
    expect(result.added.sort()).toEqual(["documents/one-name.test", "documents/one-name.test/guide"]);
    expect(result.skipped).toEqual(
      expect.arrayContaining([
        { url: "https://one-name.test/index.html", reason: "the same page as https://one-name.test/ (both are https://one-name.test)" },
        { url: "https://one-name.test/guide/index.html", reason: "the same page as https://one-name.test/guide/ (both are https://one-name.test/guide)" },
      ]),
    );
  });

  it("stores an article served at two addresses once, under the page's own name rather than its folder's (issue 34)", async () => {
    const manual = html("git", `<p>The stupid content tracker.</p>`);
    const { fetch } = site("https://twin.test", {
      "/docs/": { body: manual.replace("</main>", `<a href="git.html">git</a> <a href="other.html">other</a></main>`) },
      "/docs/git.html": { body: manual.replace("</main>", `<a href="git.html">git</a> <a href="other.html">other</a></main>`) },
      "/docs/other.html": { body: html("other", `<p>Another page.</p>`) },
    });
    const result = await ingest({ start: "https://twin.test/docs/", prune: true, userAgent: UA, fetch });
    expect(result.added.sort()).toEqual(["documents/twin.test/docs/git.html", "documents/twin.test/docs/other.html"]);
    expect(result.skipped).toContainEqual({ url: "https://twin.test/docs/", reason: "the same page as https://twin.test/docs/git.html (the same article text)" });
  });

  it("writes nothing and says why when no page could be read", async () => {
    const fetcher = (async () => new Response("gone", { status: 404 })) as unknown as typeof fetch;
    await expect(ingest({ start: "https://empty.test/", prune: true, userAgent: UA, fetch: fetcher })).rejects.toThrow(
      /fetched no page from https:\/\/empty\.test\/, nothing was written:\n  https:\/\/empty\.test\/: HTTP 404/,
    );
  });
});
