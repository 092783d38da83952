// GET /llms.txt and each page's Markdown through the Worker's own fetch handler.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { listCorpusForLlms, formatLlmsTxt } from "../../src/documents/read/llms-txt.ts";
import { parseLlmsTxt } from "../../src/readers/llms-txt.ts";
import { prepareSite, siteFor } from "../../src/documents/ingest/prepare-pages.ts";
import { syncDocuments } from "../../src/documents/ingest/write-corpus.ts";
import { app } from "../../src/index.ts";
import { loadCorpus } from "../support/corpus.ts";
import { ORIGIN, getPage, visitor } from "../support/landing-page.ts";

let corpus: Awaited<ReturnType<typeof loadCorpus>>;

beforeAll(async () => {
  corpus = await loadCorpus();
  const widgets = await prepareSite(
    [
      { path: "index.md", text: '---\ntitle: Widgets [beta]\ndescription: "All\\nabout widgets."\n---\nWidgets.' },
      { path: "a b.md", text: "# Spaced\n\nA file name with a space." },
    ],
    siteFor("https://widgets.test"),
  );
  await syncDocuments(env.DB, "https://widgets.test", widgets.documents, { prune: false });
});

describe("GET /llms.txt", () => {
  it("describes the corpus as llmstxt.org defines it: the server's name, a summary, a section per data source", async () => {
    const { response, html: text } = await getPage("/llms.txt");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    const parsed = parseLlmsTxt(text, `${ORIGIN}/llms.txt`);
    expect(parsed.title).toBe("Almanac");
    expect(parsed.summary).toContain(`${corpus.length + 2} pages from 2 data sources`);
    expect([...new Set(parsed.links.map((link) => link.section))]).toEqual(["almanac.dev", "widgets.test"]);
    expect(parsed.links.filter((link) => link.section === "almanac.dev").map((link) => link.url).sort()).toEqual(
      corpus.map((doc) => `${ORIGIN}/${doc.name}.md`).sort(),
    );
    // Brackets in a title are escaped and a description stays on its line.
    expect(text).toContain(`- [Widgets \\[beta\\]](${ORIGIN}/documents/widgets.test.md): All about widgets.`);
    expect(parsed.links.find((link) => link.section === "widgets.test")?.title).toBe("Widgets [beta]");
  });

  it("serves every page it links as that page's Markdown", async () => {
    const { html: text } = await getPage("/llms.txt");
    const links = parseLlmsTxt(text, `${ORIGIN}/llms.txt`).links;
    // Reading every page is more gets than an anonymous minute allows (test/quota/read-limits.test.ts holds that limit): a crawler of its own, with room.
    const roomy = { ...env, QUOTA_PUBLIC_GET_PER_MINUTE: "1000" };
    for (const link of links) {
      const response = await app.request(`${ORIGIN}${new URL(link.url).pathname}`, { headers: visitor("198.51.100.40") }, roomy);
      const markdown = await response.text();
      expect(response.status, link.url).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
      const name = new URL(link.url).pathname.slice(1).replace(/\.md$/, "");
      const stored = corpus.find((doc) => doc.name === name);
      if (stored) expect(markdown).toBe(stored.content);
    }
    expect((await getPage("/documents/widgets.test/a%20b.md")).html).toBe("# Spaced\n\nA file name with a space.");
  });

  it("answers 404 with the way to the pages for a name it does not hold or a path that is not Markdown", async () => {
    const missing = await getPage("/documents/almanac.dev/docs/nope.md");
    expect(missing.response.status).toBe(404);
    expect(missing.html).toContain("no page named documents/almanac.dev/docs/nope; /llms.txt lists the pages");
    const notMarkdown = await getPage("/documents/almanac.dev/docs");
    expect(notMarkdown.response.status).toBe(404);
    expect(notMarkdown.html).toContain("pages are at /documents/<host>/<path>.md");
  });

  it("keeps to the landing page's browser rules: a Host outside ALLOWED_HOSTS and a foreign Origin are refused", async () => {
    const badHost = await app.request("http://evil.example:8787/llms.txt", {}, { ...env, ALLOWED_HOSTS: "localhost" });
    expect(badHost.status).toBe(403);
    expect(await badHost.text()).not.toContain("almanac.dev");
    const page = await app.request(`${ORIGIN}/documents/almanac.dev/docs.md`, { headers: { Origin: "https://elsewhere.example" } }, env);
    expect(page.status).toBe(403);
  });

  it("lists at most its cap of links however large the corpus, and says how many are left out", async () => {
    const listing = await listCorpusForLlms(env.DB, 5);
    const text = formatLlmsTxt(listing, { serverName: "Almanac", origin: ORIGIN });
    const links = parseLlmsTxt(text, ORIGIN).links;
    // Two sources share five links: two each, so the small one is listed beside the large one.
    expect(links.map((link) => link.section)).toEqual(["almanac.dev", "almanac.dev", "widgets.test", "widgets.test"]);
    expect(text).toContain(`${corpus.length - 2} more pages of almanac.dev are not listed here (this file lists at most 5 pages)`);
    const oneSource = formatLlmsTxt(await listCorpusForLlms(env.DB, 5, 1), { serverName: "Almanac", origin: ORIGIN });
    expect(oneSource).toContain("## More data sources");
    expect(oneSource).toContain("- widgets.test: 2 pages");
  });
});
