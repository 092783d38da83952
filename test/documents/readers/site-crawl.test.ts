// The crawler and ingestSite inside workerd against real D1, driven by a site the test builds:
// a fetch function answering real Response objects (Workers cannot open a server to crawl).
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { crawlSite } from "../../../src/documents/ingest/readers/site/crawl.ts";
import { ingestSite } from "../../../src/documents/ingest/readers/site/ingest.ts";
import { findDocuments } from "../../../src/documents/read/stored-documents.ts";

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

  it("crawls nothing when robots.txt cannot be read, as RFC 9309 says", async () => {
    const { fetch } = site("https://down.test", { "/robots.txt": { body: () => new Response("oops", { status: 503 }) }, "/": { body: html("Home", "") } });
    const result = await crawlSite({ start: "https://down.test/", fetch, userAgent: UA });
    expect(result.pages).toEqual([]);
    expect(result.skipped[0]?.reason).toMatch(/robots\.txt could not be read \(HTTP 503\)/);
  });
});

describe("ingesting a site into D1", () => {
  const pages = (guide: string): Record<string, Page> => ({
    "/docs/": { body: html("Home", `<p>Welcome.</p><a href="guide">Guide</a><a href="old">Old</a>`), etag: '"home-1"' },
    "/docs/guide": { body: html("Guide", guide), etag: `"guide-${guide.length}"` },
    "/docs/old": { body: `<html><head><link rel="canonical" href="https://evil.test/x"></head><body><main><h1>Old</h1><p>Old page.</p></main></body></html>`, etag: '"old-1"' },
  });

  it("names pages by their public URL, asks conditionally the second time, and prunes pages gone from the site", async () => {
    const options = { start: "http://mirror.test/docs/", baseUri: "https://docs.example.org/docs", prune: true, userAgent: UA };
    const first = await ingestSite(env.DB, { ...options, fetch: site("http://mirror.test", pages("<h2 id='setup'>Set up</h2><p>Run it.</p>")).fetch });
    expect(first.added.sort()).toEqual(["documents/docs.example.org/docs", "documents/docs.example.org/docs/guide", "documents/docs.example.org/docs/old"]);
    expect(first.notes).toEqual([{ url: "http://mirror.test/docs/old", note: "canonical https://evil.test/x ignored: not under http://mirror.test/docs/" }]);
    const guide = (await findDocuments(env.DB, ["documents/docs.example.org/docs/guide"])).get("documents/docs.example.org/docs/guide");
    expect(guide).toMatchObject({ uri: "https://docs.example.org/docs/guide", content: "# Guide\n\n## Set up {#setup}\n\nRun it." });

    const second = site("http://mirror.test", pages("<h2 id='setup'>Set up</h2><p>Run it.</p>"));
    const again = await ingestSite(env.DB, { ...options, fetch: second.fetch });
    expect(again).toMatchObject({ added: [], updated: [], removed: [], notModified: 3, fetched: 0 });
    expect(again.unchanged).toHaveLength(3);
    expect(second.requests.filter((request) => !request.url.endsWith("robots.txt") && !request.url.endsWith("sitemap.xml")).every((request) => request.headers.has("if-none-match"))).toBe(true);

    const changed = pages("<h2 id='setup'>Set up</h2><p>Run it twice.</p>");
    delete changed["/docs/old"];
    const third = await ingestSite(env.DB, { ...options, fetch: site("http://mirror.test", changed).fetch });
    expect(third).toMatchObject({ updated: ["documents/docs.example.org/docs/guide"], removed: ["documents/docs.example.org/docs/old"], notModified: 1 });
  });

  it("writes nothing and says why when no page could be read", async () => {
    const fetcher = (async () => new Response("gone", { status: 404 })) as unknown as typeof fetch;
    await expect(ingestSite(env.DB, { start: "https://empty.test/", prune: true, userAgent: UA, fetch: fetcher })).rejects.toThrow(
      /fetched no page from https:\/\/empty\.test\/, nothing was written:\n  https:\/\/empty\.test\/: HTTP 404/,
    );
  });
});
