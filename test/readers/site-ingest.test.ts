// ingestSite inside workerd against real D1, driven by a site the test builds (test/support/site-fetch.ts):
// public names, conditional requests, pruning, canonical links and a failing site.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { planSiteRun, type SiteRunRequest } from "../../src/documents/ingest/plan-site-run.ts";
import { ingestSite } from "../../src/documents/ingest/site-run.ts";
import { findDocuments } from "../../src/documents/read/stored-documents.ts";
import { html, site, UA, type Page } from "../support/site-fetch.ts";

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
