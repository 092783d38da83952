// GET /: what a visitor sees before trying anything.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createApiKey, revokeApiKey } from "../../src/auth/key-store.ts";
import { app } from "../../src/index.ts";
import { chargeAnswerQuery } from "../../src/quota/gate.ts";
import { ENHANCE_SCRIPT } from "../../src/web/enhance.ts";
import { SERVED_REVISIONS } from "../../src/web/protocol-revisions.ts";
import { STYLES } from "../../src/web/styles.ts";
import { loadCorpus } from "../support/corpus.ts";
import { loadDefaultLibrary } from "../support/library-fixtures.ts";
import { awayFromMinuteEnd } from "../support/clock.ts";
import { ORIGIN, attributes, getPage, text, texts, visitor } from "../support/landing-page.ts";

/**
 * What the page may weigh, uncompressed, with the default corpus and no
 * panel filled: every byte of CSS and script is inlined, so this is all a
 * phone downloads. (It is about 30 KB; gzip makes it about 7 KB.)
 */
const MAX_PAGE_BYTES = 40_000;

beforeAll(async () => {
  await loadCorpus();
  await loadDefaultLibrary();
});

async function sha256Base64(textToHash: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(textToHash));
  return btoa(String.fromCharCode(...new Uint8Array(digest)));
}

describe("What is here", () => {
  it("shows pages, sections and the last update per data source, as D1 holds them", async () => {
    const { response, html } = await getPage("/", visitor("198.51.100.1"));
    expect(response.status).toBe(200);
    const expected = await env.DB.prepare(
      `SELECT d.data_source AS source, count(DISTINCT d.name) AS pages, count(c.rowid) AS sections, max(d.update_time) AS updated
       FROM documents d LEFT JOIN chunks c ON c.document_name = d.name GROUP BY d.data_source`,
    ).all<{ source: string; pages: number; sections: number; updated: string }>();
    const [almanac] = expected.results;
    expect(expected.results).toHaveLength(1);
    const row = (await texts(html, "#here .card:nth-child(1) tbody td")).map((cell) => cell.trim());
    expect(await text(html, "#here .card:nth-child(1) tbody th")).toBe("almanac.dev");
    expect(row).toEqual([String(almanac?.pages), String(almanac?.sections), almanac?.updated.slice(0, 10)]);
    expect(await text(html, ".up")).toBe(`Up: serving ${almanac?.pages} pages.`);
  });

  it("shows query-library entries per provider, mutations among them", async () => {
    const { html } = await getPage("/", visitor("198.51.100.1"));
    const providers = await texts(html, "#here .card:nth-child(2) tbody th");
    const cells = await texts(html, "#here .card:nth-child(2) tbody td");
    expect(providers).toEqual(["cloudflare", "github", "google"]);
    const rows = await env.DB.prepare(
      "SELECT metadata, verb FROM library_entries WHERE status != 'deprecated'",
    ).all<{ metadata: string; verb: string }>();
    const github = rows.results.filter((row) => (JSON.parse(row.metadata) as { providers: string[] }).providers.includes("github"));
    expect(cells.slice(2, 4)).toEqual([String(github.length), String(github.filter((row) => row.verb !== "select").length)]);
  });

  it("shows the MCP URL and the REST base URL of this very server, and the protocol revisions served", async () => {
    const { html } = await getPage("/", visitor("198.51.100.1"));
    expect(await text(html, "#mcp-url")).toBe(`${ORIGIN}/mcp`);
    expect(await text(html, "#rest-url")).toBe(`${ORIGIN}/v1`);
    const revisions = (await texts(html, "#here dd")).join(" ");
    for (const revision of [...SERVED_REVISIONS.stateless, ...SERVED_REVISIONS.sessions]) expect(revisions).toContain(revision);
  });
});

describe("the allowance box", () => {
  it("shows an anonymous visitor the public tier's limits, read from the same counter the 429 uses", async () => {
    await awayFromMinuteEnd();
    const headers = visitor("198.51.100.20");
    const before = await getPage("/", headers);
    expect(await text(before.html, "#allowance p")).toMatch(/^Anonymous \(public tier\)/);
    expect((await texts(before.html, "#allowance tbody td")).slice(0, 2)).toEqual(["3", "3"]);
    await chargeAnswerQuery(env, { kind: "anonymous", address: "198.51.100.20" }, 2);
    const after = await getPage("/", headers);
    const cells = await texts(after.html, "#allowance tbody td");
    expect(cells.slice(0, 2)).toEqual(["1", "3"]);
    expect(cells.slice(3, 5)).toEqual(["18", "20"]);
  });

  it("shows a key's own limits when the page is opened with the key, and a refused key's reason instead of a 401", async () => {
    const { key, record } = await createApiKey(env.DB, { label: "landing-box", answerPerMinute: 7, answerPerDay: 70 });
    const { html } = await getPage("/", { Authorization: `Bearer ${key}` });
    expect(await text(html, "#allowance p")).toBe(`API key "landing-box" (${record.id}, tier standard).`);
    expect((await texts(html, "#allowance tbody td")).map((cell) => cell.trim()).filter((_, index) => index % 3 !== 2)).toEqual(["7", "7", "70", "70"]);
    await revokeApiKey(env.DB, record.id);
    const revoked = await getPage(`/?key=${key}`);
    expect(revoked.response.status).toBe(200);
    expect(await text(revoked.html, "#allowance .field-error")).toMatch(/^the API key sent in \?key= \("landing-box", key_\w+\) was revoked at /);
  });

  it("is left out, with the ask panel and the key field, when ENABLED_TOOLS leaves answer_query out", async () => {
    const response = await app.request("/", {}, { ...env, ENABLED_TOOLS: "search_documents,get_documents" });
    const html = await response.text();
    expect(await texts(html, "#allowance")).toEqual([]);
    expect(await texts(html, "#ask")).toEqual([]);
    expect(await texts(html, "#api-key")).toEqual([]);
    expect(await texts(html, "#library")).toEqual([]);
    expect(await texts(html, "#search h3")).toEqual(["Search the documentation"]);
  });
});

describe("the page itself", () => {
  it(`weighs under ${MAX_PAGE_BYTES} bytes with the default corpus`, async () => {
    const { html } = await getPage("/", visitor("198.51.100.1"));
    expect(new TextEncoder().encode(html).length).toBeLessThan(MAX_PAGE_BYTES);
  });

  it("loads nothing from elsewhere and runs only its own inline script and styles, by hash", async () => {
    const { response, html } = await getPage("/", visitor("198.51.100.1"));
    const policy = response.headers.get("Content-Security-Policy") ?? "";
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain(`script-src 'sha256-${await sha256Base64(ENHANCE_SCRIPT)}'`);
    expect(policy).toContain(`style-src 'sha256-${await sha256Base64(STYLES)}'`);
    expect(policy).toContain("frame-ancestors 'none'");
    expect(html).toContain(`<script>${ENHANCE_SCRIPT}</script>`);
    expect(html).toContain(`<style>${STYLES}</style>`);
    expect(await attributes(html, "script[src], link[rel=stylesheet], img", "src")).toEqual([]);
    expect(response.headers.get("Cache-Control")).toBe("no-store");
  });

  it("labels every form field and gives every panel a heading", async () => {
    const { html } = await getPage("/", visitor("198.51.100.1"));
    const ids = (await attributes(html, "input:not([type=hidden]), select, textarea", "id")).filter((id) => id !== null);
    const labelled = await attributes(html, "label[for]", "for");
    expect(ids.length).toBeGreaterThan(4);
    for (const id of ids) expect(labelled).toContain(id);
    expect(await texts(html, "h1")).toEqual(["Almanac"]);
    expect(await texts(html, "h2")).toEqual(["What is here", "Connect a client", "Try it"]);
    expect(await texts(html, "#try h3")).toEqual(["Search the documentation", "Ask a question", "Query library"]);
  });

  it("refuses a Host outside ALLOWED_HOSTS with a page that shows none of the server's data", async () => {
    const response = await app.request("http://evil.example:8787/", {}, { ...env, ALLOWED_HOSTS: "localhost" });
    const html = await response.text();
    expect(response.status).toBe(403);
    expect(await text(html, "h1")).toBe("403 Forbidden");
    expect(await text(html, "main p")).toBe('Host "evil.example:8787" is not served here; allowed hosts: localhost');
    expect(html).not.toContain("almanac.dev");
  });
});
