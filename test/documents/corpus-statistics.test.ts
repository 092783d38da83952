// Search weighs words by statistics of the whole corpus (how many chunks it
// has, in how many each word occurs). Every refresh deletes and re-inserts
// the chunks of changed pages, so a statistic read from row ids drifts with
// each one; kept by migration 0012's triggers it stays exact. A corpus
// refreshed many times must rank exactly, question by question and score by
// score, as the same pages ingested once.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { PreparedDocument } from "../../src/documents/ingest/prepare-pages.ts";
import { DEFAULT_CORPUS } from "../../src/documents/default-corpus.ts";
import { planRetrieval, retrieveChunks } from "../../src/documents/search/retrieve.ts";
import { fetchCandidates } from "../../src/documents/search/candidates.ts";
import { d1Statements } from "../../src/d1/statements.ts";
import { DEFAULT_RANKING } from "../../src/documents/search/ranking-weights.ts";
import { syncDocuments } from "../../src/documents/ingest/write-corpus.ts";
import { preparedCorpus } from "../support/corpus.ts";

const QUESTIONS = [
  "connect Claude Desktop",
  "create an API key",
  "how do I revoke a key",
  "wrangler d1 create deploy",
  "AIP-160 filter update_time",
  "what does answer_query cost",
  "search_documents pageToken",
  "refresh a source on a schedule",
  "403 Forbidden browser origin",
  "vectorize embeddings hybrid retrieval",
  "quota per minute anonymous callers",
  "how is the corpus chunked into sections",
];

const REFRESHES = 30;

/** Every question's whole ranking: each chunk with its score, and the words' weights. */
async function rankings(): Promise<unknown[]> {
  const all: unknown[] = [];
  for (const question of QUESTIONS) {
    const { ranked, terms } = await retrieveChunks(env.DB, question, { compiled: null }, DEFAULT_RANKING);
    all.push({ question, terms, ranked: ranked.map((chunk) => `${chunk.parent}#${chunk.id} ${chunk.score}`) });
  }
  return all;
}

/** The pages with one in twenty (from `offset`) changed: a line added to each, so their chunks are deleted and re-inserted. */
function revised(documents: readonly PreparedDocument[], offset: number, round: number): PreparedDocument[] {
  return documents.map((doc, index) =>
    (index + offset) % 20 === 0
      ? {
          ...doc,
          content: `${doc.content}\n\nRevision ${round} of this page.`,
          contentHash: `${doc.contentHash}-${round}`,
          chunks: doc.chunks.map((chunk, at) => (at === doc.chunks.length - 1 ? { ...chunk, content: `${chunk.content}\n\nRevision ${round} of this page.` } : chunk)),
        }
      : doc,
  );
}

async function chunkCount(): Promise<number> {
  return (await env.DB.prepare("SELECT count(*) AS n FROM chunks").first<{ n: number }>())?.n ?? 0;
}

async function counted(): Promise<number | undefined> {
  return (await env.DB.prepare("SELECT chunks FROM corpus_statistics WHERE id = 1").first<{ chunks: number }>())?.chunks;
}

describe("corpus statistics across refreshes", () => {
  it(`ranks a corpus refreshed ${REFRESHES} times exactly as the same pages ingested once`, async () => {
    const documents = await preparedCorpus();
    await syncDocuments(env.DB, DEFAULT_CORPUS.baseUri, documents, { prune: true });
    const once = await rankings();
    const chunks = await chunkCount();
    expect(await counted()).toBe(chunks);

    for (let round = 1; round < REFRESHES; round++) {
      const report = await syncDocuments(env.DB, DEFAULT_CORPUS.baseUri, revised(documents, round, round), { prune: true });
      expect(report.updated.length).toBeGreaterThan(0);
    }
    // The last refresh puts the original text back.
    const last = await syncDocuments(env.DB, DEFAULT_CORPUS.baseUri, documents, { prune: true });
    expect(last.updated.length).toBeGreaterThan(0);

    // The refreshes did re-insert chunks: row ids now run far past the count.
    const { top } = (await env.DB.prepare("SELECT max(rowid) AS top FROM chunks").first<{ top: number }>()) ?? { top: 0 };
    expect(top).toBeGreaterThan(chunks * 2);
    expect(await chunkCount()).toBe(chunks);
    expect(await counted()).toBe(chunks);
    expect(await rankings()).toEqual(once);
  });

  it("counts what removing pages and a whole base URI leaves", async () => {
    const documents = await preparedCorpus();
    await syncDocuments(env.DB, DEFAULT_CORPUS.baseUri, documents, { prune: true });
    await syncDocuments(env.DB, DEFAULT_CORPUS.baseUri, documents.slice(0, 5), { prune: true });
    expect(await counted()).toBe(await chunkCount());
    await syncDocuments(env.DB, DEFAULT_CORPUS.baseUri, [], { prune: true });
    expect(await counted()).toBe(0);
  });

  it("is what search weighs words by, read in the candidates' own statement", async () => {
    const documents = await preparedCorpus();
    await syncDocuments(env.DB, DEFAULT_CORPUS.baseUri, documents, { prune: true });
    await syncDocuments(env.DB, DEFAULT_CORPUS.baseUri, revised(documents, 0, 1), { prune: true });
    const statements: string[] = [];
    const runner = d1Statements(env.DB);
    const counting = { rows: (list: Parameters<typeof runner.rows>[0]) => (statements.push(...list.map(({ sql }) => sql)), runner.rows(list)) };
    const { candidates, statistics } = await fetchCandidates(counting, planRetrieval("create an API key", { compiled: null }) ?? expect.fail("no plan"), DEFAULT_RANKING);
    expect(candidates.length).toBeGreaterThan(0);
    expect(statistics.chunkCount).toBe(await chunkCount());
    expect(statistics.chunkFrequency.size).toBeGreaterThan(0);
    expect(statements).toHaveLength(1);
  });
});
