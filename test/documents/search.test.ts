import { env } from "cloudflare:test";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { getDocuments } from "../../src/documents/read/get-documents.ts";
import { prepareSite, siteFor } from "../../src/documents/ingest/prepare-pages.ts";
import { rankCandidates } from "../../src/documents/search/rank.ts";
import { DEFAULT_RANKING } from "../../src/documents/search/ranking-weights.ts";
import { searchDocuments } from "../../src/documents/search/search-documents.ts";
import { syncDocuments } from "../../src/documents/ingest/write-corpus.ts";
import { AlmanacError } from "../../src/errors.ts";
import { corpusName, loadCorpus } from "../support/corpus.ts";

beforeAll(async () => {
  await loadCorpus();
});

async function topParent(query: string): Promise<string | undefined> {
  return (await searchDocuments(env.DB, { query })).results[0]?.parent;
}

describe("search ranking on the default corpus", () => {
  it.each([
    ["connect Claude Desktop", "clients/claude-desktop"],
    ["claude_desktop_config.json mcp-remote", "clients/claude-desktop"],
    ["Cursor mcp.json", "clients/cursor"],
    ["VS Code .vscode/mcp.json", "clients/vs-code"],
    ["MCP Inspector", "clients/mcp-inspector"],
    ["create an API key", "api-keys-and-quotas"],
    ["revoke a key", "api-keys-and-quotas"],
    ["wrangler d1 create deploy", "deploying"],
    ["AIP-160 filter update_time", "filters"],
    ["ALLOWED_ORIGINS", "configuration"],
    ["get_documents NOT_FOUND", "tools/get-documents"],
    ["googleapis developerknowledge REST", "rest-api"],
    ["front matter intent_keywords params", "query-library-format"],
    ["403 Forbidden browser origin", "troubleshooting"],
  ])("puts the right page first for %s", async (query, path) => {
    expect(await topParent(query)).toBe(corpusName(path));
  });

  it("returns chunks that carry their heading path and page fields", async () => {
    const { results } = await searchDocuments(env.DB, { query: "Retry-After header" });
    const hit = results[0];
    expect(hit?.content.split("\n")[0]).toContain(" > ");
    expect(hit?.document.uri).toMatch(/^https:\/\/almanac\.dev\/docs\//);
    expect(hit?.document.dataSource).toBe("almanac.dev");
    expect(hit?.document.updateTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });
});

describe("paging", () => {
  it("walks pages without overlap until nextPageToken is absent", async () => {
    const seen = new Set<string>();
    let pageToken: string | undefined;
    let pages = 0;
    do {
      const page = await searchDocuments(env.DB, { query: "quota", pageSize: 3, pageToken });
      for (const hit of page.results) {
        const key = `${hit.parent}#${hit.id}`;
        expect(seen.has(key)).toBe(false);
        seen.add(key);
      }
      pageToken = page.nextPageToken;
      pages += 1;
    } while (pageToken && pages < 20);
    expect(pages).toBeGreaterThan(1);
  });

  it("refuses a token from another query, and a forged one", async () => {
    const { nextPageToken } = await searchDocuments(env.DB, { query: "quota", pageSize: 1 });
    await expect(searchDocuments(env.DB, { query: "keys", pageToken: nextPageToken })).rejects.toThrow(/different query/);
    await expect(searchDocuments(env.DB, { query: "quota", pageToken: "bm9wZQ" })).rejects.toThrow(/not a token this server issued/);
  });
});

describe("hostile query text", () => {
  it.each(['"foo* AND (bar NEAR -x:y', "NEAR(a b)", "col:value", "-", "^", "🙂", "ñandú", "数据库", "''''"])(
    "never turns %s into an FTS error",
    async (query) => {
      const result = await searchDocuments(env.DB, { query });
      expect(Array.isArray(result.results)).toBe(true);
    },
  );

  it("never fails on any string (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 60, unit: "grapheme" }), async (query) => {
        const result = await searchDocuments(env.DB, { query });
        expect(Array.isArray(result.results)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it("reports a bad filter as INVALID_ARGUMENT, not a database error", async () => {
    const error = await searchDocuments(env.DB, { query: "quota", filter: "uri > 3" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AlmanacError);
    expect((error as AlmanacError).status).toBe("INVALID_ARGUMENT");
  });

  it("filters by data source and content length", async () => {
    const none = await searchDocuments(env.DB, { query: "quota", filter: 'data_source = "dart.dev"' });
    expect(none.results).toEqual([]);
    const some = await searchDocuments(env.DB, { query: "quota", filter: 'data_source = "almanac.dev" AND content_length_bytes > 10' });
    expect(some.results.length).toBeGreaterThan(0);
  });
});

describe("Almanac's own pages beside a user's documentation", () => {
  const userSite = siteFor("https://docs.example.com");

  beforeAll(async () => {
    const { documents } = await prepareSite(
      [
        { path: "limits.md", text: "# Rate limits\n\nEvery API key has a quota of requests per minute; a spent quota answers 429.\n" },
        { path: "decoding.md", text: "# Decoding\n\nTo read JSON text, call the JSON decode function of the codec.\n" },
      ],
      userSite,
    );
    await syncDocuments(env.DB, userSite.baseUri, documents, { prune: false });
  });

  it("stay out of results for questions about the user's documentation", async () => {
    const { results } = await searchDocuments(env.DB, { query: "quota per minute 429", pageSize: 10 });
    expect(results.map((hit) => hit.parent)).toEqual(["documents/docs.example.com/limits"]);
  });

  it("come back when the query names Almanac or the filter names its site", async () => {
    expect(await topParent("Almanac answer_query quota per minute")).toMatch(/^documents\/almanac\.dev\//);
    const filtered = await searchDocuments(env.DB, { query: "quota per minute", filter: 'data_source = "almanac.dev"' });
    expect(filtered.results[0]?.parent).toMatch(/^documents\/almanac\.dev\//);
  });

  it("a camelCase identifier in the query also finds its words written apart", async () => {
    expect(await topParent("jsonDecode")).toBe("documents/docs.example.com/decoding");
  });

  it("are still served by name", async () => {
    expect((await getDocuments(env.DB, [corpusName("filters")]))[0]?.name).toBe(corpusName("filters"));
  });
});

describe("re-ranking without weighed words", () => {
  // Regression: a query of stopwords only ("how to", "C") gave every candidate coverage 0, so results came in name order.
  it("lets release notes step aside unless the question asks about versions", () => {
    const chunk = (parent: string, title: string, heading: string, bm25: number) => ({
      parent,
      id: "x",
      content: "the --fixtures-per-test option",
      heading,
      position: 1,
      terms: "",
      bm25,
      document: { name: parent, uri: "", title, description: "", dataSource: "x.dev", updateTime: "" },
    });
    const notes = chunk("documents/x.dev/changelog", "Changelog", "pytest 7.2.0 (2022-10-23) > Improvements", 10);
    const guide = chunk("documents/x.dev/how-to/fixtures", "How to use fixtures", "Fixtures per test", 7);
    const order = (stems: string[]) =>
      rankCandidates([notes, guide], stems.map((stem) => ({ stem, weight: 1 })), new Set(), DEFAULT_RANKING).map((hit) => hit.parent);
    expect(order(["fixtur", "per", "test"])).toEqual([guide.parent, notes.parent]);
    expect(order(["fixtur", "per", "test", "version"])).toEqual([notes.parent, guide.parent]);
    expect(order(["fixtur", "per", "test", "7.2"])).toEqual([notes.parent, guide.parent]);
  });

  it("keeps BM25's order when the query has no topical word", () => {
    const candidate = (parent: string, bm25: number) => ({
      parent,
      id: "intro",
      content: "x",
      heading: "",
      position: 0,
      terms: "",
      bm25,
      document: { name: parent, uri: "", title: "", description: "", dataSource: "x.dev", updateTime: "" },
    });
    const ranked = rankCandidates([candidate("documents/a", 0.1), candidate("documents/z", 10)], [], new Set(), DEFAULT_RANKING);
    expect(ranked.map((hit) => hit.parent)).toEqual(["documents/z", "documents/a"]);
  });

  it("finds and orders results for a stopword-only query", async () => {
    const { results } = await searchDocuments(env.DB, { query: "how to", pageSize: 5 });
    expect(results.length).toBeGreaterThan(0);
  });
});
