// Search counts a common word's chunks from the copy ingestion keeps
// (common-terms.ts), not from chunks_vocab, which reads the word's whole
// doclist: the counts must be the index's own, kept current by ingestion.
import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { COMMON_TERM_MIN_CHUNKS } from "../../src/documents/search/common-terms.ts";
import { prepareSite, siteFor } from "../../src/documents/ingest/prepare-pages.ts";
import { searchDocuments } from "../../src/documents/search/search-documents.ts";
import { syncDocuments } from "../../src/documents/ingest/write-corpus.ts";
import { chosenExpression } from "../support/chosen-match.ts";

const site = siteFor("https://herd.example.com");
const SECTIONS = COMMON_TERM_MIN_CHUNKS + 20;

/**
 * One page of `sections` chunks: "zebra", "2fa" and "данные" in every one (terms at both ends of
 * the vocabulary and beyond its letters), "okapi" in the first three, "giraffe" in the first `giraffes`.
 */
async function herd(sections: number, giraffes = 0) {
  const text = Array.from({ length: sections }, (_, i) =>
    `## Paddock ${i}\n\nzebra 2fa данные ${i < 3 ? "okapi" : ""} ${i < giraffes ? "giraffe" : ""} grazing`,
  ).join("\n\n");
  return (await prepareSite([{ path: "herd.md", text: `# Herd\n\n${text}` }], site)).documents;
}

async function copied(): Promise<Record<string, number>> {
  const { results } = await env.DB.prepare("SELECT term, doc FROM common_terms ORDER BY term").all<{ term: string; doc: number }>();
  return Object.fromEntries(results.map((row) => [row.term, row.doc]));
}

async function indexCount(term: string): Promise<number> {
  return (await env.DB.prepare("SELECT doc FROM chunks_vocab WHERE term = ?1").bind(term).first<{ doc: number }>())?.doc ?? 0;
}

beforeEach(async () => {
  await syncDocuments(env.DB, site.baseUri, await herd(SECTIONS, COMMON_TERM_MIN_CHUNKS), { prune: true });
});

describe("the copy of common terms' counts", () => {
  it("holds the index's own count of every term in enough chunks, and no rarer term", async () => {
    const copy = await copied();
    expect(copy.zebra).toBe(await indexCount("zebra"));
    expect(copy.zebra).toBeGreaterThanOrEqual(SECTIONS);
    expect(copy.giraff).toBe(await indexCount("giraff"));
    // Every range of the vocabulary is copied: before "a", the letters, and after "z".
    expect(copy["2fa"]).toBe(await indexCount("2fa"));
    expect(copy["данные"]).toBe(await indexCount("данные"));
    expect(await indexCount("данные")).toBeGreaterThanOrEqual(SECTIONS);
    expect(copy.okapi).toBeUndefined();
    expect(await indexCount("okapi")).toBe(3);
  });

  it("is renewed by an ingestion that changes the index", async () => {
    await syncDocuments(env.DB, site.baseUri, await herd(SECTIONS, 2), { prune: true });
    const copy = await copied();
    expect(copy.giraff).toBeUndefined();
    expect(copy.zebra).toBe(await indexCount("zebra"));
  });

  it("is filled by an unchanged ingestion when it is empty (the first run after migration 0005)", async () => {
    await env.DB.prepare("DELETE FROM common_terms").run();
    const report = await syncDocuments(env.DB, site.baseUri, await herd(SECTIONS, COMMON_TERM_MIN_CHUNKS), { prune: true });
    expect(report.unchanged).toHaveLength(1);
    expect((await copied()).zebra).toBe(await indexCount("zebra"));
  });

  it("is not written by an unchanged ingestion of a corpus too small to have common terms", async () => {
    const small = siteFor("https://pony.example.com");
    const { documents } = await prepareSite([{ path: "pony.md", text: "# Pony\n\nA small horse." }], small);
    await syncDocuments(env.DB, small.baseUri, documents, { prune: false });
    await syncDocuments(env.DB, site.baseUri, [], { prune: true });
    expect(await copied()).toEqual({});
    const batch = vi.spyOn(env.DB, "batch");
    const report = await syncDocuments(env.DB, small.baseUri, documents, { prune: false });
    expect(report.unchanged).toHaveLength(1);
    expect(batch).not.toHaveBeenCalled();
    batch.mockRestore();
  });

  it("is what search counts common words by, and the index counts the others", async () => {
    // "okapi" (3 chunks, not copied) is rarer than "zebra": within a budget of 5 only it chooses candidates.
    expect(await chosenExpression("zebra okapi", 5)).toBe('"okapi"');
    // Were the copy to say zebra is in no chunk, zebra would cost nothing and be chosen too: the copy is read first.
    await env.DB.prepare("UPDATE common_terms SET doc = 0 WHERE term = 'zebra'").run();
    expect(await chosenExpression("zebra okapi", 5)).toBe('"zebra" OR "okapi"');
  });

  it("gives search the same results as counting from the index itself", async () => {
    const query = "zebra okapi grazing paddock";
    const withCopy = await searchDocuments(env.DB, { query });
    await env.DB.prepare("DELETE FROM common_terms").run();
    const fromIndex = await searchDocuments(env.DB, { query });
    expect(withCopy.results.length).toBeGreaterThan(0);
    expect(withCopy).toEqual(fromIndex);
  });
});
