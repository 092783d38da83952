// A run is all or nothing for readers (issue 20): its pages are staged where
// no reader looks and published in one transaction. A failed, abandoned or
// killed run leaves the previous pages served and its own rows cleaned up.
import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { prepareSite, siteFor } from "../../src/documents/ingest/prepare-pages.ts";
import { syncDocuments } from "../../src/documents/ingest/write-corpus.ts";
import { AbandonedRunError, beginGeneration, generationState, STALE_RUN_MS, sweepGenerations } from "../../src/documents/ingest/generations.ts";
import { publishGeneration } from "../../src/documents/ingest/publish-generation.ts";
import { stagePages } from "../../src/documents/ingest/stage-pages.ts";
import { searchDocuments } from "../../src/documents/search/search-documents.ts";

const site = siteFor("https://gen.example.com");

async function pages(version: string, count = 12) {
  const files = Array.from({ length: count }, (_, i) => ({
    path: `page-${i}.md`,
    text: `# Page ${i} ${version}\n\n${Array.from({ length: 8 }, (_, s) => `## Part ${s}\n\nGenword${version} text of page ${i} part ${s}.`).join("\n\n")}`,
  }));
  return (await prepareSite(files, site)).documents;
}

/** What readers see of the site: each page's title. */
async function titles(): Promise<string[]> {
  const { results } = await env.DB.prepare("SELECT title FROM documents WHERE base_uri = ?1 ORDER BY name").bind(site.baseUri).all<{ title: string }>();
  return results.map((row) => row.title);
}

async function stagedRows(): Promise<number> {
  const row = await env.DB.prepare(
    "SELECT (SELECT count(*) FROM staged_chunks) + (SELECT count(*) FROM staged_documents) + (SELECT count(*) FROM staged_pages) + (SELECT count(*) FROM staged_site_pages) AS n",
  ).first<{ n: number }>();
  return row?.n ?? -1;
}

describe("generations", () => {
  it("a run that fails part way publishes nothing: the previous pages are served whole and its rows are gone", async () => {
    await syncDocuments(env.DB, site, await pages("one"), { prune: true });
    const before = await titles();
    const original = env.DB.batch.bind(env.DB);
    let calls = 0;
    const batch = vi.spyOn(env.DB, "batch").mockImplementation(async (statements) => {
      calls += 1;
      // begin, sweep, the first staging batch land; the second staging batch fails as a lost database would.
      if (calls === 4) throw new Error("D1_ERROR: the database is overloaded");
      return original(statements);
    });
    await expect(syncDocuments(env.DB, site, await pages("two", 40), { prune: true })).rejects.toThrow(/overloaded/);
    batch.mockRestore();
    expect(await titles()).toEqual(before);
    expect(before.every((title) => title.endsWith(" one"))).toBe(true);
    expect(await stagedRows()).toBe(0);
    const { results } = await searchDocuments(env.DB, { query: "Genwordtwo" });
    expect(results).toEqual([]);
  });

  it("a newer run of the same base URI abandons an older one still writing; the older cannot publish", async () => {
    await syncDocuments(env.DB, site, await pages("one"), { prune: true });
    await beginGeneration(env.DB, "run-old", site.baseUri);
    await stagePages(env.DB, "run-old", site.baseUri, (await pages("old")).slice(0, 5));
    // A newer run (the CLI after a kill, say) starts and publishes.
    await syncDocuments(env.DB, site, await pages("new"), { prune: true });
    expect(await generationState(env.DB, "run-old")).toBe("abandoned");
    await expect(stagePages(env.DB, "run-old", site.baseUri, (await pages("old")).slice(5))).rejects.toBeInstanceOf(AbandonedRunError);
    await expect(publishGeneration(env.DB, "run-old", { baseUri: site.baseUri, prune: true })).rejects.toBeInstanceOf(AbandonedRunError);
    expect((await titles()).every((title) => title.endsWith(" new"))).toBe(true);
    expect(await stagedRows()).toBe(0);
  });

  it("a killed run (silent past the staleness limit) is abandoned and its rows swept, leaving what readers see alone", async () => {
    await syncDocuments(env.DB, site, await pages("one"), { prune: true });
    const longAgo = new Date(Date.now() - STALE_RUN_MS - 60_000);
    await beginGeneration(env.DB, "run-killed", "https://elsewhere.example.com", longAgo);
    await env.DB.prepare("UPDATE generations SET touched_time = ?1 WHERE id = 'run-killed'").bind(longAgo.toISOString()).run();
    await stagePages(env.DB, "run-killed", "https://elsewhere.example.com", []);
    await env.DB.prepare("UPDATE generations SET touched_time = ?1 WHERE id = 'run-killed'").bind(longAgo.toISOString()).run();
    await env.DB.prepare("INSERT INTO staged_pages (generation, name, outcome) VALUES ('run-killed', 'documents/elsewhere.example.com/x', 'added')").run();
    await sweepGenerations(env.DB);
    // Abandoned and, being old, forgotten: either way it can no longer publish.
    expect(await generationState(env.DB, "run-killed")).toBeNull();
    await expect(publishGeneration(env.DB, "run-killed", { baseUri: "https://elsewhere.example.com", prune: true })).rejects.toBeInstanceOf(AbandonedRunError);
    expect(await stagedRows()).toBe(0);
    expect((await titles()).every((title) => title.endsWith(" one"))).toBe(true);
  });

  it("staging a page twice (a retried step) and publishing twice (a retried publish) write it once", async () => {
    const other = siteFor("https://retried.example.com");
    const documents = (await prepareSite([0, 1, 2].map((i) => ({ path: `p${i}.md`, text: `# P${i}\n\n## A\n\nOne.\n\n## B\n\nTwo.` })), other)).documents;
    await beginGeneration(env.DB, "run-retried", other.baseUri);
    await stagePages(env.DB, "run-retried", other.baseUri, documents);
    await stagePages(env.DB, "run-retried", other.baseUri, documents);
    const report = await publishGeneration(env.DB, "run-retried", { baseUri: other.baseUri, prune: true });
    expect(report.added).toHaveLength(3);
    await expect(publishGeneration(env.DB, "run-retried", { baseUri: other.baseUri, prune: true })).resolves.toBeDefined();
    const row = await env.DB.prepare("SELECT count(*) AS n FROM chunks WHERE document_name LIKE 'documents/retried.example.com/%'").first<{ n: number }>();
    expect(row?.n).toBe(3 * documents[0]!.chunks.length);
  });

  it("pruning removes exactly the pages the run did not read, in the same transaction as its new pages", async () => {
    await syncDocuments(env.DB, site, await pages("one", 6), { prune: true });
    const report = await syncDocuments(env.DB, site, (await pages("two", 6)).slice(0, 4), { prune: true });
    expect(report.updated).toHaveLength(4);
    expect(report.removed).toEqual(["documents/gen.example.com/page-4", "documents/gen.example.com/page-5"]);
    expect(await titles()).toEqual(["Page 0 two", "Page 1 two", "Page 2 two", "Page 3 two"]);
    const orphans = await env.DB.prepare("SELECT count(*) AS n FROM chunks WHERE document_name NOT IN (SELECT name FROM documents)").first<{ n: number }>();
    expect(orphans?.n).toBe(0);
  });

  it("stages a large index's terms exactly, quotes, backslashes and other scripts included, however many statements they take", async () => {
    const docs = await pages("terms", 3);
    const awkward = ['say "hi"', "C:\\path\\to", "naïve café", "日本語の索引", "emoji 🔍 search", "it's", "[x]", '{"a":1}'];
    // About 1.2 MB of JSON: more than one staging statement carries.
    const terms = Array.from({ length: 12_000 }, (_, i) => ({
      source: "https://gen.example.com/genindex.html",
      target: (docs[i % docs.length] as (typeof docs)[number]).name,
      anchor: i % 3 === 0 ? "" : `part-${i % 8}`,
      term: `${awkward[i % awkward.length]} ${i} ${"x".repeat(40)}`,
    }));
    await beginGeneration(env.DB, "run-terms", site.baseUri);
    await stagePages(env.DB, "run-terms", site.baseUri, docs, { indexTerms: terms });
    const { results } = await env.DB.prepare("SELECT source, target, anchor, term FROM staged_index_terms WHERE generation = ?1").bind("run-terms").all<(typeof terms)[number]>();
    const key = (row: (typeof terms)[number]) => JSON.stringify([row.source, row.target, row.anchor, row.term]);
    expect(results.map(key).sort()).toEqual(terms.map(key).sort());
  });
});
