// The search panel as a plain HTML form: GET /try/search.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { app } from "../../src/index.ts";
import { searchDocuments } from "../../src/documents/search/search-documents.ts";
import { loadCorpus } from "../support/corpus.ts";
import { attributes, getPage, text, texts, visitor } from "../support/landing-page.ts";

beforeAll(async () => {
  await loadCorpus();
});

const search = (fields: Record<string, string>, headers: Record<string, string> = visitor("198.51.100.30")) =>
  getPage(`/try/search?${new URLSearchParams(fields)}`, headers);

describe("search results", () => {
  it("lists search_documents' hits in its order, each with its title, section, a marked snippet and a link to the section", async () => {
    const { response, html } = await search({ query: "rotate an API key" });
    expect(response.status).toBe(200);
    const expected = await searchDocuments(env.DB, { query: "rotate an API key" });
    expect(await texts(html, "#search h5")).toEqual(expected.results.map((hit) => hit.document.title));
    expect(await texts(html, "#search .parent")).toEqual(expected.results.map((hit) => hit.parent));
    const first = expected.results[0];
    if (!first) throw new Error("no hits");
    expect((await attributes(html, "#search h5 a", "href"))[0]).toBe(`${first.document.uri}#${first.id}`);
    expect((await texts(html, "#search .section a"))[0]).toBe(first.content.split("\n")[0]?.replace(`${first.document.title} > `, ""));
    const marked = (await texts(html, "#search .snippet mark")).map((word) => word.toLowerCase());
    expect(marked).toEqual(expect.arrayContaining(["key"]));
    expect(marked.every((word) => ["rotate", "api", "key", "keys", "keyed", "rotating", "rotation"].includes(word))).toBe(true);
    expect(await text(html, "#search h4")).toBe(`Results 1–${expected.results.length} for “rotate an API key”`);
  });

  it("pages with search_documents' own page token, numbering on", async () => {
    const first = await search({ query: "quota" });
    const next = (await attributes(first.html, "#search a[rel=next]", "href"))[0];
    expect(next).toMatch(/^\/try\/search\?query=quota&pageToken=[^&]+&start=6#search$/);
    const second = await getPage(next ?? "", visitor("198.51.100.30"));
    expect(await text(second.html, "#search h4")).toMatch(/^Results 6–10 for “quota”$/);
    expect(await attributes(second.html, "#search ol.hits", "start")).toEqual(["6"]);
    const page2 = await searchDocuments(env.DB, { query: "quota", pageToken: new URL(next ?? "", "http://x").searchParams.get("pageToken") ?? "" });
    expect(await texts(second.html, "#search h5")).toEqual(page2.results.map((hit) => hit.document.title));
    expect(await texts(second.html, "#search nav a")).toContain("First results");
  });

  it("says so, with a hint, when nothing matches", async () => {
    const { response, html } = await search({ query: "zzyzx qqqwww" });
    expect(response.status).toBe(200);
    expect(await text(html, "#search p[data-focus]")).toMatch(/^Nothing matched “zzyzx qqqwww”\. Try other or fewer words/);
  });

  it("opens empty without a query, and answers an empty query with the tool's own message and 400", async () => {
    const opened = await getPage("/try/search", visitor("198.51.100.30"));
    expect(opened.response.status).toBe(200);
    expect(await texts(opened.html, "#search h4")).toEqual([]);
    const empty = await search({ query: "" });
    expect(empty.response.status).toBe(400);
    expect(await text(empty.html, "#search .error p")).toBe("query must not be empty; ask a question or give keywords");
    expect(await attributes(empty.html, "#search-query", "value")).toEqual([""]);
  });

  it("never fails on awkward text: quotes, FTS syntax, emoji, other scripts, a forged page token", async () => {
    for (const query of ['"unbalanced (paren* AND NEAR', "🙂 ключ API", "-:*^", "x".repeat(500)]) {
      const { response } = await search({ query });
      expect(response.status, query).toBe(200);
    }
    const tooLong = await search({ query: "x".repeat(501) });
    expect(tooLong.response.status).toBe(400);
    expect(await text(tooLong.html, "#search .error p")).toBe("query must be at most 500 characters; shorten it to the key terms");
    const forged = await search({ query: "quota", pageToken: "bm9wZQ" });
    expect(forged.response.status).toBe(400);
    expect(await text(forged.html, "#search .error p")).toMatch(/^pageToken is not a token this server issued/);
  });

  it("narrows to one data source with the same filter search_documents takes", async () => {
    const { html } = await search({ query: "quota", dataSource: "nowhere.example" });
    expect(await text(html, "#search p[data-focus]")).toMatch(/^Nothing matched/);
    const almanac = await search({ query: "quota", dataSource: "almanac.dev" });
    expect((await texts(almanac.html, "#search h5")).length).toBe(5);
  });
});

describe("who may search", () => {
  it("checks a key sent with the request exactly as /mcp does: an unknown one is 401 with the reason in the panel", async () => {
    const { response, html } = await search({ query: "quota" }, { Authorization: "Bearer alm_nope" });
    expect(response.status).toBe(401);
    expect(await text(html, "#search .error p")).toMatch(/^the API key sent in Authorization: Bearer is not valid on this server \(unknown key\)/);
    expect(await text(html, "#search-query")).toBe("");
    expect(await attributes(html, "#search-query", "value")).toEqual(["quota"]);
  });

  it("requires a key when PUBLIC_TIER is off", async () => {
    const response = await app.request("/try/search?query=quota", {}, { ...env, PUBLIC_TIER: "off" });
    expect(response.status).toBe(401);
    expect(await text(await response.text(), "#search .error p")).toMatch(/^this server requires an API key/);
  });

  it("refuses a page on another origin (fetch from a foreign site) with 403, before searching", async () => {
    const { response, html } = await search({ query: "quota" }, { Origin: "https://evil.example" });
    expect(response.status).toBe(403);
    expect(await text(html, "main p")).toMatch(/^a page on https:\/\/evil\.example may not use this server's forms/);
  });

  it("is turned off with search_documents", async () => {
    const response = await app.request("/try/search?query=quota", {}, { ...env, ENABLED_TOOLS: "answer_query" });
    expect(response.status).toBe(403);
    expect(await text(await response.text(), "main p")).toBe("this panel is turned off on this server: its operator left search_documents out of ENABLED_TOOLS");
  });
});
