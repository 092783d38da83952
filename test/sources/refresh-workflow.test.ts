// The refresh Workflow's steps inside workerd, against real D1 and the real
// local Workflows engine: the cron claims a due source and starts an
// instance, the instance crawls in pieces, publishes at once and records the
// run; a site failing half way leaves the previous pages served. The site is
// a fetch function answering real Responses (a Worker cannot open a server).
import { env, introspectWorkflow } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { refreshDueSources } from "../../src/sources/cron.ts";
import { addSource, getSource } from "../../src/sources/sources.ts";
import { startPendingRun } from "../../src/sources/pushes.ts";
import { PAGE_REQUESTS_PER_STEP } from "../../src/sources/refresh-workflow.ts";
import { searchDocuments } from "../../src/documents/search/search-documents.ts";
import { embedAllStoredPages } from "../../src/documents/ingest/embed-chunks.ts";
import { d1VectorIndex } from "../../src/embeddings/d1-index.ts";
import { BagEmbedder } from "../support/bag-embedder.ts";
import { bagOfWords } from "../support/bag-of-words.ts";

const ORIGIN = "https://refresh.test";
const html = (title: string, body: string) => `<html><head><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`;

/** A site of `count` linked pages whose text says `word`; pages listed in `failing` answer 500. */
function serveSite(count: number, word: string, failing: (i: number) => boolean = () => false) {
  const links = Array.from({ length: count }, (_, i) => `<a href="/docs/p${i}.html">P${i}</a>`).join(" ");
  return vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.origin !== ORIGIN) throw new TypeError(`fetch failed: ${url.origin} is not the test site`);
    if (url.pathname === "/robots.txt") return new Response("", { status: 404 });
    if (url.pathname === "/docs/") return new Response(html("Index", `<p>Index of the ${word} docs.</p>${links}`), { headers: { "content-type": "text/html" } });
    const page = /^\/docs\/p(\d+)\.html$/.exec(url.pathname);
    if (!page || Number(page[1]) >= count) return new Response("gone", { status: 404 });
    if (failing(Number(page[1]))) return new Response("down", { status: 500 });
    return new Response(html(`Page ${page[1]}`, `<p>Refreshword${word} text of page ${page[1]}.</p>`), { headers: { "content-type": "text/html" } });
  });
}

const EMBEDDINGS = "https://embeddings.test";

/**
 * The site (page `i`'s word replaced by `changed(i)` when it gives one) and an
 * OpenAI-style embeddings server at EMBEDDINGS whose vectors are the
 * bag-of-words stand-in's; returns how many texts it has embedded so far.
 */
function serveSiteAndEmbeddings(count: number, word: string, changed: (i: number) => string | undefined = () => undefined): () => number {
  const links = Array.from({ length: count }, (_, i) => `<a href="/docs/p${i}.html">P${i}</a>`).join(" ");
  let texts = 0;
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.origin === EMBEDDINGS) {
      const { input: batch } = JSON.parse(String(init?.body)) as { input: string[] };
      texts += batch.length;
      return Response.json({ data: batch.map((text, index) => ({ index, embedding: bagOfWords(text) })) });
    }
    if (url.origin !== ORIGIN) throw new TypeError(`fetch failed: ${url.origin} is not the test site`);
    if (url.pathname === "/robots.txt") return new Response("", { status: 404 });
    if (url.pathname === "/docs/") return new Response(html("Index", `<p>Index of the ${word} docs.</p>${links}`), { headers: { "content-type": "text/html" } });
    const page = /^\/docs\/p(\d+)\.html$/.exec(url.pathname);
    if (!page || Number(page[1]) >= count) return new Response("gone", { status: 404 });
    const text = changed(Number(page[1])) ?? `Refreshword${word}`;
    return new Response(html(`Page ${page[1]}`, `<p>${text} text of page ${page[1]}.</p>`), { headers: { "content-type": "text/html" } });
  });
  return () => texts;
}

/** Rows of the test site's pages in `table` (chunks or chunk_vectors). */
async function countOf(table: "chunks" | "chunk_vectors"): Promise<number> {
  return (await env.DB.prepare(`SELECT count(*) AS n FROM ${table} WHERE document_name LIKE 'documents/refresh.test/%'`).first<{ n: number }>())?.n ?? 0;
}

/** Fires the cron, waits for the one instance it started, and returns how it ended. */
async function refreshOnce(status: "complete" | "errored") {
  const introspector = await introspectWorkflow(env.SOURCE_REFRESH);
  try {
    await introspector.modifyAll(async (m) => {
      await m.disableRetryDelays();
    });
    const report = await refreshDueSources(env.DB, env.SOURCE_REFRESH, Date.now());
    expect(report.started).toEqual(["demo"]);
    const [instance] = await introspector.get();
    await instance!.waitForStatus(status);
    return status === "complete" ? await instance!.getOutput() : await instance!.getError();
  } finally {
    await introspector.dispose();
  }
}

const makeDue = () => env.DB.prepare("UPDATE sources SET next_due = 0 WHERE name = 'demo'").run();

// The tests of a file share one database: each starts from no source and no page of the test site.
beforeEach(async () => {
  await env.DB.batch([
    env.DB.prepare("DELETE FROM sources"),
    env.DB.prepare("DELETE FROM generations"),
    env.DB.prepare("DELETE FROM site_pages"),
    env.DB.prepare("DELETE FROM chunks WHERE document_name LIKE 'documents/refresh.test/%'"),
    env.DB.prepare("DELETE FROM chunk_vectors WHERE document_name LIKE 'documents/refresh.test/%'"),
    env.DB.prepare("DELETE FROM documents WHERE base_uri LIKE 'https://refresh.test%'"),
  ]);
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the refresh Workflow", () => {
  it("crawls in pieces, publishes the site at once, records the run, and the next run sees exactly the change", async () => {
    await addSource(env.DB, { name: "demo", kind: "site", url: `${ORIGIN}/docs/`, options: { prune: true }, every: 3600 }, Date.now());
    const pages = PAGE_REQUESTS_PER_STEP * 2 + 5;
    const fetch = serveSite(pages, "one");
    const output = await refreshOnce("complete");
    // The index and its pages, read in three crawl steps.
    expect(output).toEqual({ added: pages + 1, updated: 0, unchanged: 0, removed: 0, skipped: 0 });
    expect(fetch.mock.calls.filter(([input]) => String(input).endsWith("/robots.txt"))).toHaveLength(1);
    const first = await getSource(env.DB, "demo");
    expect(first).toMatchObject({ runId: null, lastRun: { outcome: "succeeded", added: pages + 1, error: null } });
    expect(first!.nextDue).toBeGreaterThan(Date.now() + 3500_000);
    expect((await searchDocuments(env.DB, { query: "Refreshwordone page 7" })).results[0]?.parent).toBe("documents/refresh.test/docs/p7.html");

    // The site changes: one page fewer, every text new.
    fetch.mockRestore();
    serveSite(pages - 1, "two");
    await makeDue();
    expect(await refreshOnce("complete")).toEqual({ added: 0, updated: pages, unchanged: 0, removed: 1, skipped: 0 });
    expect((await searchDocuments(env.DB, { query: "Refreshwordone" })).results).toEqual([]);
    expect((await searchDocuments(env.DB, { query: "Refreshwordtwo page 7" })).results[0]?.parent).toBe("documents/refresh.test/docs/p7.html");
  });

  // The refresh check of issue 38: a source added without --prune, every page changed and one removed, reported
  // "updated 30, removed 0", and the removed page stayed in search beside the new generation's pages.
  it("mirrors its origin without --prune: a page the site no longer has goes in the same publication as the changed ones", async () => {
    await addSource(env.DB, { name: "demo", kind: "site", url: `${ORIGIN}/docs/`, options: {}, every: 3600 }, Date.now());
    serveSite(30, "one");
    expect(await refreshOnce("complete")).toMatchObject({ added: 31, removed: 0 });
    vi.restoreAllMocks();
    serveSite(29, "two");
    await makeDue();
    expect(await refreshOnce("complete")).toEqual({ added: 0, updated: 30, unchanged: 0, removed: 1, skipped: 0 });
    expect((await searchDocuments(env.DB, { query: "Refreshwordone" })).results).toEqual([]);
    const hits = await searchDocuments(env.DB, { query: "Refreshwordtwo text of page", pageSize: 20 });
    expect(hits.results.some((hit) => hit.parent === "documents/refresh.test/docs/p29.html")).toBe(false);
    expect(await env.DB.prepare("SELECT count(*) AS n FROM documents WHERE base_uri = ?1").bind(`${ORIGIN}/docs`).first("n")).toBe(30);
  });

  it("a run that reads under half the pages it would replace fails with the reason and removes nothing", async () => {
    await addSource(env.DB, { name: "demo", kind: "site", url: `${ORIGIN}/docs/`, options: {}, every: 3600 }, Date.now());
    serveSite(30, "one");
    await refreshOnce("complete");
    vi.restoreAllMocks();
    // The index lists 10 pages now: 11 read of 31.
    serveSite(10, "one");
    await makeDue();
    const error = (await refreshOnce("errored")) as { message: string };
    expect(error.message).toMatch(/the run read 11 pages where the source had 31, under 50%: taken as a broken origin.*nothing was published/);
    expect(await getSource(env.DB, "demo")).toMatchObject({ runId: null, lastRun: { outcome: "failed", error: expect.stringMatching(/--allow-shrink/) } });
    expect(await env.DB.prepare("SELECT count(*) AS n FROM documents WHERE base_uri = ?1").bind(`${ORIGIN}/docs`).first("n")).toBe(31);
  });

  it("a push naming URLs reads only those pages: a changed one is replaced, a gone one removed, the rest neither read nor pruned", async () => {
    await addSource(env.DB, { name: "demo", kind: "site", url: `${ORIGIN}/docs/`, options: {}, every: 3600 }, Date.now());
    serveSite(10, "one");
    await refreshOnce("complete");
    vi.restoreAllMocks();
    // Every page's text changes and p9 is gone, but the push names p3 and p9 only.
    const fetch = serveSite(9, "two");
    await env.DB.prepare("INSERT INTO source_pushes (source, received_time, provider, changes) VALUES ('demo', ?1, 'signed', ?2)")
      .bind(Date.now(), JSON.stringify({ urls: [`${ORIGIN}/docs/p3.html`, `${ORIGIN}/docs/p9.html`] }))
      .run();
    const introspector = await introspectWorkflow(env.SOURCE_REFRESH);
    try {
      expect(await startPendingRun(env.DB, env.SOURCE_REFRESH, "demo", Date.now())).toMatch(/^run-/);
      const [instance] = await introspector.get();
      await instance!.waitForStatus("complete");
      expect(await instance!.getOutput()).toEqual({ added: 0, updated: 1, unchanged: 0, removed: 1, skipped: 1 });
    } finally {
      await introspector.dispose();
    }
    const paths = fetch.mock.calls.map(([input]) => new URL(String(input instanceof Request ? input.url : input)).pathname);
    expect(paths.sort()).toEqual(["/docs/p3.html", "/docs/p9.html", "/robots.txt"]);
    expect(await getSource(env.DB, "demo")).toMatchObject({ lastRunPages: { read: 1, written: 2, pushToPublishedMs: expect.any(Number) } });
    expect((await searchDocuments(env.DB, { query: "Refreshwordtwo" })).results.map((hit) => hit.parent)).toEqual(["documents/refresh.test/docs/p3.html"]);
    expect(await env.DB.prepare("SELECT count(*) AS n FROM documents WHERE base_uri = ?1").bind(`${ORIGIN}/docs`).first("n")).toBe(10);
  });

  it("a site answering 500s half way fails the run with the reason and leaves the previous pages served; the next run succeeds", async () => {
    await addSource(env.DB, { name: "demo", kind: "site", url: `${ORIGIN}/docs/`, options: { prune: true }, every: 3600 }, Date.now());
    serveSite(30, "one");
    await refreshOnce("complete");
    vi.restoreAllMocks();
    serveSite(30, "two", (i) => i >= 15);
    await makeDue();
    const error = (await refreshOnce("errored")) as { message: string };
    expect(error.message).toMatch(/the site failed to serve 15 of the 31 pages/);
    const failed = await getSource(env.DB, "demo");
    expect(failed).toMatchObject({ runId: null, lastRun: { outcome: "failed" } });
    expect(failed!.lastRun!.error).toMatch(/HTTP 500.*nothing was published and the previous pages are still served/);
    // Not one page of the failed run is seen: the first run's pages are served whole.
    expect((await searchDocuments(env.DB, { query: "Refreshwordtwo" })).results).toEqual([]);
    expect((await searchDocuments(env.DB, { query: "Refreshwordone page 3" })).results[0]?.parent).toBe("documents/refresh.test/docs/p3.html");
    const staged = await env.DB.prepare("SELECT (SELECT count(*) FROM staged_documents) + (SELECT count(*) FROM staged_chunks) AS n").first<{ n: number }>();
    expect(staged?.n).toBe(0);

    vi.restoreAllMocks();
    serveSite(30, "two");
    await makeDue();
    expect(await refreshOnce("complete")).toMatchObject({ updated: 31, removed: 0 });
    expect(await getSource(env.DB, "demo")).toMatchObject({ lastRun: { outcome: "succeeded", error: null } });
  });

  it("a run that reads no page fails at once, saying why, and publishes nothing", async () => {
    await addSource(env.DB, { name: "demo", kind: "site", url: `${ORIGIN}/docs/`, options: { prune: true }, every: 3600 }, Date.now());
    vi.spyOn(globalThis, "fetch").mockImplementation(async () => new Response("forbidden", { status: 403 }));
    const error = (await refreshOnce("errored")) as { message: string };
    expect(error.message).toMatch(/fetched no page from https:\/\/refresh.test\/docs\/, nothing was written/);
    expect(await getSource(env.DB, "demo")).toMatchObject({ runId: null, lastRun: { outcome: "failed", error: expect.stringMatching(/HTTP 403/) } });
  });

  it("a sitemap too long for a step's result fails the run saying how to narrow the source", async () => {
    await addSource(env.DB, { name: "demo", kind: "site", url: `${ORIGIN}/docs/`, options: {}, every: 3600 }, Date.now());
    const listed = Array.from({ length: 12_000 }, (_, i) => `<url><loc>${ORIGIN}/docs/a-rather-long-path-name-for-page-number-${i}.html</loc></url>`);
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      if (url.pathname === "/docs/sitemap.xml") return new Response(`<urlset>${listed.join("")}</urlset>`, { headers: { "content-type": "application/xml" } });
      if (url.pathname === "/robots.txt") return new Response("", { status: 404 });
      return new Response(html("A page", "<p>Text.</p>"), { headers: { "content-type": "text/html" } });
    });
    const error = (await refreshOnce("errored")) as { message: string };
    expect(error.message).toMatch(/outgrew what a Workflow step may return \(1 MiB\).*--include, --exclude or --max-pages/);
    expect(await getSource(env.DB, "demo")).toMatchObject({ runId: null, lastRun: { outcome: "failed" } });
  });

  it("with hybrid retrieval on, gives every published chunk its vector, and the next run only the changed ones", async () => {
    // The instance reads the same env as the test (one isolate): hybrid retrieval with an OpenAI-style embeddings server, answered by the fetch mock.
    const vars = env as unknown as Record<string, string>;
    const saved = { EMBEDDINGS: vars.EMBEDDINGS, EMBEDDINGS_URL: vars.EMBEDDINGS_URL, EMBEDDINGS_MODEL: vars.EMBEDDINGS_MODEL };
    Object.assign(vars, { EMBEDDINGS: "http", EMBEDDINGS_URL: `${EMBEDDINGS}/v1`, EMBEDDINGS_MODEL: "bag-of-words-64" });
    try {
      await addSource(env.DB, { name: "demo", kind: "site", url: `${ORIGIN}/docs/`, options: { prune: true }, every: 3600 }, Date.now());
      let embedded = serveSiteAndEmbeddings(PAGE_REQUESTS_PER_STEP + 5, "one");
      expect(await refreshOnce("complete")).toMatchObject({ added: PAGE_REQUESTS_PER_STEP + 6 });
      const chunks = await countOf("chunks");
      expect(chunks).toBeGreaterThan(PAGE_REQUESTS_PER_STEP);
      expect(embedded()).toBe(chunks);
      expect(await countOf("chunk_vectors")).toBe(chunks);
      // What the run stored is what the chunks say now: an embedder of the same model has nothing left to do.
      const same = new BagEmbedder({ model: "http:bag-of-words-64" });
      expect(await embedAllStoredPages(env.DB, { embedder: same, index: (db) => d1VectorIndex(db) }, `${ORIGIN}/docs`)).toMatchObject({ embedded: 0, removed: 0 });

      // Page 3 changes and the last page is gone (so the index lists one link fewer): only the two changed pages' chunks are embedded, the gone page's vector deleted.
      vi.restoreAllMocks();
      embedded = serveSiteAndEmbeddings(PAGE_REQUESTS_PER_STEP + 4, "one", (i) => (i === 3 ? "Refreshwordtwo" : undefined));
      await makeDue();
      expect(await refreshOnce("complete")).toMatchObject({ updated: 2, removed: 1 });
      expect(embedded()).toBe(2);
      expect(await countOf("chunk_vectors")).toBe(await countOf("chunks"));
    } finally {
      Object.assign(vars, saved);
    }
  });

  it("never starts a second run of a source whose run is still going", async () => {
    await addSource(env.DB, { name: "demo", kind: "site", url: `${ORIGIN}/docs/`, options: {}, every: 3600 }, Date.now());
    await env.DB.prepare("UPDATE sources SET run_id = 'run-elsewhere', outcome = 'running', start_time = ?1 WHERE name = 'demo'").bind(Date.now()).run();
    await env.DB.prepare("INSERT INTO generations (id, base_uri, state, started_time, touched_time) VALUES ('run-elsewhere', ?1, 'writing', ?2, ?2)")
      .bind(`${ORIGIN}/docs`, new Date().toISOString())
      .run();
    const report = await refreshDueSources(env.DB, env.SOURCE_REFRESH, Date.now());
    expect(report).toEqual({ started: [], released: [] });
  });

  it("releases a source whose run is lost (no instance, silent for an hour) and starts a new one", async () => {
    await addSource(env.DB, { name: "demo", kind: "site", url: `${ORIGIN}/docs/`, options: {}, every: 3600 }, Date.now());
    const longAgo = Date.now() - 2 * 3600_000;
    await env.DB.prepare("UPDATE sources SET run_id = 'cli-lost', outcome = 'running', start_time = ?1, next_due = 0 WHERE name = 'demo'").bind(longAgo).run();
    serveSite(3, "one");
    const introspector = await introspectWorkflow(env.SOURCE_REFRESH);
    try {
      const report = await refreshDueSources(env.DB, env.SOURCE_REFRESH, Date.now());
      expect(report.released).toEqual([{ name: "demo", why: expect.stringMatching(/stopped without finishing/) }]);
      expect(report.started).toEqual(["demo"]);
      const [instance] = await introspector.get();
      await instance!.waitForStatus("complete");
    } finally {
      await introspector.dispose();
    }
    expect(await getSource(env.DB, "demo")).toMatchObject({ runId: null, lastRun: { outcome: "succeeded", added: 4 } });
  });
});
