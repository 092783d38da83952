// Hybrid retrieval against real D1: the embedding step's bookkeeping, the D1 vector index, fusion
// and the fallback. The embedder is the bag-of-words stand-in (bag-of-words.ts): these tests
// prove the wiring, not the quality of any model.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CORPUS } from "../../src/documents/default-corpus.ts";
import { answerQuery } from "../../src/documents/answer/answer-query.ts";
import { syncDocuments } from "../../src/documents/ingest/write-corpus.ts";
import { embedAllStoredPages, embedStoredPages } from "../../src/documents/ingest/embed-chunks.ts";
import { prepareDocument, siteFor, type PreparedDocument } from "../../src/documents/ingest/prepare-pages.ts";
import { DEFAULT_RANKING } from "../../src/documents/search/ranking-weights.ts";
import { searchDocuments } from "../../src/documents/search/search-documents.ts";
import { d1VectorIndex, decodeVector, encodeVector } from "../../src/embeddings/d1-index.ts";
import type { SemanticSearch } from "../../src/embeddings/semantic-search.ts";
import { normalise } from "../../src/embeddings/embedder.ts";
import { RequestTimings, collectTimings, serverTimingValue } from "../../src/observability/timings.ts";
import { corpusName, preparedCorpus } from "../support/corpus.ts";
import { BagEmbedder } from "../support/bag-embedder.ts";

const semantic = (embedder: BagEmbedder): SemanticSearch => ({ embedder, index: (db) => d1VectorIndex(db) });
const chunkCount = (documents: readonly PreparedDocument[]) => documents.reduce((sum, doc) => sum + doc.chunks.length, 0);
const ledgerCount = async () => (await env.DB.prepare("SELECT count(*) AS n FROM chunk_vectors").first<{ n: number }>())?.n ?? 0;
/** The query of the stand-in's synonym table: none of its words is on any page of the default corpus. */
const SYNONYM_QUERY = "rescind a passcode";

let corpus: PreparedDocument[];
const embedder = new BagEmbedder();

beforeAll(async () => {
  corpus = await preparedCorpus();
  const report = await syncDocuments(env.DB, DEFAULT_CORPUS.baseUri, corpus, { prune: false, embeddings: semantic(embedder) });
  expect(report.embedding?.embedded).toBe(chunkCount(corpus));
});

describe("the embedding step of an ingestion", () => {
  it("embeds every chunk once, in calls no larger than the embedder's batch size", async () => {
    expect(embedder.texts).toHaveLength(chunkCount(corpus));
    expect(Math.max(...embedder.calls)).toBeLessThanOrEqual(embedder.batchSize);
    expect(await ledgerCount()).toBe(chunkCount(corpus));
    const stored = await env.DB.prepare("SELECT model, dimensions, vector FROM chunk_vectors LIMIT 1").first<{ model: string; dimensions: number; vector: unknown }>();
    expect(stored).toMatchObject({ model: "test:bag-of-words-64", dimensions: 64 });
    expect(decodeVector(stored?.vector)).toHaveLength(64);
    expect(stored?.vector).toBe(encodeVector(new Float32Array(decodeVector(stored?.vector) ?? [])));
  });

  it("sends nothing to the embedder when nothing changed", async () => {
    const before = embedder.texts.length;
    const report = await syncDocuments(env.DB, DEFAULT_CORPUS.baseUri, corpus, { prune: false, embeddings: semantic(embedder) });
    expect(report.embedding).toEqual({ model: "test:bag-of-words-64", embedded: 0, removed: 0 });
    expect(embedder.texts.length).toBe(before);
  });

  it("embeds only the chunks of a changed page that changed, and deletes the vectors of chunks and pages that are gone", async () => {
    const site = siteFor("https://vectors.example");
    const own = new BagEmbedder();
    const first = [
      (await prepareDocument("a.md", "---\ntitle: A\n---\n# A\n\n## One\n\nThe first section.\n\n## Two\n\nThe second section.\n", site)) as PreparedDocument,
      (await prepareDocument("b.md", "---\ntitle: B\n---\n# B\n\nA page that will be removed.\n", site)) as PreparedDocument,
    ];
    await syncDocuments(env.DB, site.baseUri, first, { prune: true, embeddings: semantic(own) });
    const embeddedFirst = own.texts.length;
    expect(embeddedFirst).toBe(chunkCount(first));

    const changed = [(await prepareDocument("a.md", "---\ntitle: A\n---\n# A\n\n## One\n\nThe first section.\n\n## Three\n\nA new section.\n", site)) as PreparedDocument];
    const report = await syncDocuments(env.DB, site.baseUri, changed, { prune: true, embeddings: semantic(own) });
    // "Two" is gone from a.md and b.md is pruned; only "Three" is new text.
    expect(own.texts.slice(embeddedFirst)).toEqual([expect.stringContaining("A new section.")]);
    expect(report.embedding).toMatchObject({ embedded: 1, removed: 1 + first[1]!.chunks.length });
    const left = await env.DB.prepare("SELECT chunk_id FROM chunk_vectors WHERE base_uri = ?1 ORDER BY chunk_id").bind(site.baseUri).all<{ chunk_id: string }>();
    expect(left.results.map((row) => row.chunk_id)).toEqual(changed[0]!.chunks.map((chunk) => chunk.id).sort());
    await syncDocuments(env.DB, site.baseUri, [], { prune: true, embeddings: semantic(own) });
  });

  it("keeps the written pages when the embedder fails, says how far it got, and embeds the rest on the next run", async () => {
    const site = siteFor("https://down.example");
    const pages = [(await prepareDocument("d.md", "---\ntitle: D\n---\n# D\n\nWritten before the embedder failed.\n", site)) as PreparedDocument];
    const down = new BagEmbedder();
    down.down = true;
    await expect(syncDocuments(env.DB, site.baseUri, pages, { prune: true, embeddings: semantic(down) })).rejects.toThrow(
      /^the pages are written, but embedding stopped after 0 of 1 chunks \(the test embedder is down\); run the ingestion again to embed the rest$/,
    );
    expect((await searchDocuments(env.DB, { query: "written before the embedder failed" })).results[0]?.parent).toBe("documents/down.example/d");
    down.down = false;
    const again = await syncDocuments(env.DB, site.baseUri, pages, { prune: true, embeddings: semantic(down) });
    expect(again).toMatchObject({ unchanged: ["documents/down.example/d"], embedding: { embedded: 1 } });
    await syncDocuments(env.DB, site.baseUri, [], { prune: true, embeddings: semantic(down) });
  }, 20_000);

  it("re-embeds everything when the model changes, and searches only the new model's vectors", async () => {
    const site = siteFor("https://models.example");
    const pages = [(await prepareDocument("m.md", "---\ntitle: M\n---\n# M\n\nModels change.\n", site)) as PreparedDocument];
    await syncDocuments(env.DB, site.baseUri, pages, { prune: true, embeddings: semantic(new BagEmbedder({ model: "test:old" })) });
    const next = new BagEmbedder({ model: "test:new" });
    const report = await syncDocuments(env.DB, site.baseUri, pages, { prune: true, embeddings: semantic(next) });
    expect(report.embedding?.embedded).toBe(pages[0]!.chunks.length);
    const models = await env.DB.prepare("SELECT DISTINCT model FROM chunk_vectors WHERE base_uri = ?1").bind(site.baseUri).all<{ model: string }>();
    expect(models.results).toEqual([{ model: "test:new" }]);
    await syncDocuments(env.DB, site.baseUri, [], { prune: true, embeddings: semantic(next) });
  });
});

// A crawl (site ingestion, a refresh's Workflow steps) writes pages as it reads them and holds
// none at the end: its embedding reads the stored pages back, a piece of pages at a time.
describe("the vectors of stored pages", () => {
  const pagesOf = async (site: ReturnType<typeof siteFor>, texts: Record<string, string>) =>
    Promise.all(Object.entries(texts).map(async ([path, body]) => (await prepareDocument(path, body, site)) as PreparedDocument));

  it("embeds every stored chunk in pieces that carry on by page name, then nothing while nothing changes", async () => {
    const site = siteFor("https://stored.example");
    const pages = await pagesOf(site, {
      "a.md": "# A\n\n## One\n\nFirst.\n\n## Two\n\nSecond.\n",
      "b.md": "# B\n\nPage b.\n",
      "c.md": "# C\n\nPage c.\n",
    });
    await syncDocuments(env.DB, site.baseUri, pages, { prune: true });
    const own = new BagEmbedder();
    const first = await embedStoredPages(env.DB, semantic(own), site.baseUri, null, { pages: 2, chunks: 200 });
    expect(first).toEqual({ model: own.model, embedded: pages[0]!.chunks.length + pages[1]!.chunks.length, removed: 0, next: "documents/stored.example/b" });
    const second = await embedStoredPages(env.DB, semantic(own), site.baseUri, first.next, { pages: 2, chunks: 200 });
    expect(second).toEqual({ model: own.model, embedded: pages[2]!.chunks.length, removed: 0, next: null });
    expect(own.texts).toHaveLength(chunkCount(pages));
    // The same texts the in-memory path embeds: an ingestion of the unchanged pages with embeddings sends nothing.
    expect((await syncDocuments(env.DB, site.baseUri, pages, { prune: true, embeddings: semantic(own) })).embedding?.embedded).toBe(0);
    expect(await embedAllStoredPages(env.DB, semantic(own), site.baseUri)).toEqual({ model: own.model, embedded: 0, removed: 0 });
    expect(own.texts).toHaveLength(chunkCount(pages));
    await syncDocuments(env.DB, site.baseUri, [], { prune: true, embeddings: semantic(own) });
  });

  it("takes whole pages until a piece's chunks to embed reach its bound, and carries on after the last one it took", async () => {
    const site = siteFor("https://stored-bound.example");
    const pages = await pagesOf(site, { "a.md": "# A\n\n## One\n\nFirst.\n\n## Two\n\nSecond.\n", "b.md": "# B\n\nPage b.\n", "c.md": "# C\n\nPage c.\n" });
    await syncDocuments(env.DB, site.baseUri, pages, { prune: true });
    const own = new BagEmbedder();
    // a.md alone has more chunks than the bound: it is embedded whole, and the piece stops there.
    expect(pages[0]!.chunks.length).toBeGreaterThan(1);
    const first = await embedStoredPages(env.DB, semantic(own), site.baseUri, null, { pages: 50, chunks: 1 });
    expect(first).toMatchObject({ embedded: pages[0]!.chunks.length, next: "documents/stored-bound.example/a" });
    const second = await embedStoredPages(env.DB, semantic(own), site.baseUri, first.next, { pages: 50, chunks: 1 });
    expect(second).toMatchObject({ embedded: 1, next: "documents/stored-bound.example/b" });
    // Nothing left to embed in a.md or b.md, so the bound no longer stops the pieces that read them again.
    expect(await embedStoredPages(env.DB, semantic(own), site.baseUri, null, { pages: 50, chunks: 1 })).toMatchObject({ embedded: 1, next: null });
    expect(own.texts).toHaveLength(chunkCount(pages));
    await syncDocuments(env.DB, site.baseUri, [], { prune: true, embeddings: semantic(own) });
  });

  it("embeds only what changed and deletes the vectors of chunks and pages no longer stored", async () => {
    const site = siteFor("https://stored-change.example");
    const own = new BagEmbedder();
    const before = await pagesOf(site, { "a.md": "# A\n\n## One\n\nFirst.\n\n## Two\n\nSecond.\n", "b.md": "# B\n\nTo be removed.\n" });
    await syncDocuments(env.DB, site.baseUri, before, { prune: true });
    await embedAllStoredPages(env.DB, semantic(own), site.baseUri);
    const embeddedBefore = own.texts.length;
    const after = await pagesOf(site, { "a.md": "# A\n\n## One\n\nFirst.\n\n## Three\n\nA new section.\n" });
    await syncDocuments(env.DB, site.baseUri, after, { prune: true });
    const report = await embedAllStoredPages(env.DB, semantic(own), site.baseUri);
    expect(own.texts.slice(embeddedBefore)).toEqual([expect.stringContaining("A new section.")]);
    expect(report).toEqual({ model: own.model, embedded: 1, removed: 1 + before[1]!.chunks.length });
    const left = await env.DB.prepare("SELECT chunk_id FROM chunk_vectors WHERE base_uri = ?1 ORDER BY chunk_id").bind(site.baseUri).all<{ chunk_id: string }>();
    expect(left.results.map((row) => row.chunk_id)).toEqual(after[0]!.chunks.map((chunk) => chunk.id).sort());
    // Every page gone: the last piece deletes the rest.
    await syncDocuments(env.DB, site.baseUri, [], { prune: true });
    expect(await embedAllStoredPages(env.DB, semantic(own), site.baseUri)).toMatchObject({ embedded: 0, removed: after[0]!.chunks.length });
    expect((await env.DB.prepare("SELECT count(*) AS n FROM chunk_vectors WHERE base_uri = ?1").bind(site.baseUri).first<{ n: number }>())?.n).toBe(0);
  });

  it("says, when the embedder fails, that the pages are written and the next run embeds the rest", async () => {
    const site = siteFor("https://stored-down.example");
    await syncDocuments(env.DB, site.baseUri, await pagesOf(site, { "d.md": "# D\n\nServed by its words.\n" }), { prune: true });
    const down = new BagEmbedder();
    down.down = true;
    await expect(embedStoredPages(env.DB, semantic(down), site.baseUri, null)).rejects.toThrow(
      /^the pages are written, but embedding stopped after 0 of 1 chunks \(the test embedder is down\); the next refresh or ingestion embeds the rest$/,
    );
    down.down = false;
    expect(await embedStoredPages(env.DB, semantic(down), site.baseUri, null)).toMatchObject({ embedded: 1, next: null });
    await syncDocuments(env.DB, site.baseUri, [], { prune: true, embeddings: semantic(down) });
  });
});

describe("hybrid search", () => {
  it("finds by meaning a page no word of the query is on, where lexical search finds nothing", async () => {
    expect((await searchDocuments(env.DB, { query: SYNONYM_QUERY })).results).toEqual([]);
    const hybrid = await searchDocuments(env.DB, { query: SYNONYM_QUERY }, DEFAULT_RANKING, semantic(embedder));
    expect(hybrid.results[0]?.parent).toBe(corpusName("api-keys-and-quotas"));
  });

  it("keeps the lexical results among the fused ones for a query both sides understand", async () => {
    const lexical = await searchDocuments(env.DB, { query: "revoke an API key", pageSize: 5 });
    const hybrid = await searchDocuments(env.DB, { query: "revoke an API key", pageSize: 5 }, DEFAULT_RANKING, semantic(embedder));
    expect(hybrid.results[0]?.parent).toBe(lexical.results[0]?.parent);
  });

  it("pages the fused ranking without repeats or gaps", async () => {
    const whole = await searchDocuments(env.DB, { query: "configure the vector index", pageSize: 10 }, DEFAULT_RANKING, semantic(embedder));
    const first = await searchDocuments(env.DB, { query: "configure the vector index", pageSize: 5 }, DEFAULT_RANKING, semantic(embedder));
    const second = await searchDocuments(env.DB, { query: "configure the vector index", pageSize: 5, pageToken: first.nextPageToken }, DEFAULT_RANKING, semantic(embedder));
    const ids = (hits: { parent: string; id: string }[]) => hits.map((hit) => `${hit.parent}#${hit.id}`);
    expect([...ids(first.results), ...ids(second.results)]).toEqual(ids(whole.results));
  });

  it("applies the filter to what the vectors find", async () => {
    const hybrid = await searchDocuments(env.DB, { query: SYNONYM_QUERY, filter: 'data_source = "nowhere.example"' }, DEFAULT_RANKING, semantic(embedder));
    expect(hybrid.results).toEqual([]);
  });

  it("answers from the fused ranking", async () => {
    const query = "How do I rescind a passcode with npm run keys?";
    const lexical = await answerQuery(env.DB, { query });
    const hybrid = await answerQuery(env.DB, { query }, undefined, semantic(embedder));
    const fused = await searchDocuments(env.DB, { query, pageSize: 8 }, DEFAULT_RANKING, semantic(embedder));
    const lexicalSearch = await searchDocuments(env.DB, { query, pageSize: 8 });
    const lexicallyRanked = new Set(lexicalSearch.results.map((hit) => hit.parent));
    expect(hybrid.references[0]).toBe(corpusName("api-keys-and-quotas"));
    // Pages only the vectors brought in are quoted, and every page quoted is among the fused results.
    expect(hybrid.references.filter((name) => !lexicallyRanked.has(name)).length).toBeGreaterThan(0);
    expect(lexical.references.every((name) => lexicallyRanked.has(name))).toBe(true);
    expect(fused.results.map((hit) => hit.parent)).toEqual(expect.arrayContaining(hybrid.references));
  });

  it("reports embed and vector time in Server-Timing", async () => {
    const timings = new RequestTimings();
    await collectTimings(timings, () => searchDocuments(env.DB, { query: SYNONYM_QUERY }, DEFAULT_RANKING, semantic(embedder)));
    expect(serverTimingValue(timings)).toMatch(/embed;dur=[\d.]+;desc="embedding the query", vector;dur=[\d.]+;desc="vector index query"/);
  });
});

describe("when the embedder is down", () => {
  it("gives exactly the lexical result, with the fallback in Server-Timing", async () => {
    const down = new BagEmbedder();
    down.down = true;
    for (const query of ["revoke an API key", SYNONYM_QUERY, "What does the filter data_source mean?"]) {
      const timings = new RequestTimings();
      const hybrid = await collectTimings(timings, () => searchDocuments(env.DB, { query, pageSize: 10 }, DEFAULT_RANKING, semantic(down)));
      expect(hybrid).toEqual(await searchDocuments(env.DB, { query, pageSize: 10 }));
      expect(serverTimingValue(timings)).toContain('fallback;desc="lexical: the test embedder is down"');
    }
  });

  it("answers as lexical answers do", async () => {
    const down = new BagEmbedder();
    down.down = true;
    const query = "How do I revoke an API key?";
    expect(await answerQuery(env.DB, { query }, undefined, semantic(down))).toEqual(await answerQuery(env.DB, { query }));
  });
});

describe("vectors as D1 stores them", () => {
  it("round-trips each component through a D1 row within half a quantisation step", async () => {
    const values = normalise([0.25, -1.5, 3.0e-3, 1, 0]);
    const row = await env.DB.prepare("SELECT ?1 AS v").bind(encodeVector(values)).first<{ v: unknown }>();
    const back = decodeVector(row?.v);
    const step = Math.max(...values.map(Math.abs)) / 127;
    expect(back).toHaveLength(values.length);
    values.forEach((value, i) => expect(Math.abs((back?.[i] ?? 9) - value)).toBeLessThanOrEqual(step / 2 + 1e-7));
  });

  it("refuses what encodeVector did not write", () => {
    expect(decodeVector("not base64!")).toBeNull();
    expect(decodeVector(new Uint8Array(8))).toBeNull();
    expect(decodeVector("AAA=")).toBeNull();
  });
});
