// Every search result carries a relevance score (Google's
// DocumentChunk.relevanceScore): in [0, 1], never rising down the list, and
// comparable across queries, so a client can drop weak results (minScore).
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { searchDocuments } from "../../src/documents/search/search-documents.ts";
import { retrieveChunks } from "../../src/documents/search/retrieve.ts";
import { DEFAULT_RANKING } from "../../src/documents/search/ranking-weights.ts";
import { formatSearchResult } from "../../src/tools/search-documents.ts";
import { loadCorpus } from "../support/corpus.ts";

beforeAll(async () => {
  await loadCorpus();
});

/** Every result of a query, page after page. */
async function allPages(query: string, minScore?: number) {
  const scores: number[] = [];
  let pageToken: string | undefined;
  do {
    const page = await searchDocuments(env.DB, { query, pageSize: 20, pageToken, ...(minScore === undefined ? {} : { minScore }) });
    scores.push(...page.results.map((hit) => hit.relevanceScore as number));
    pageToken = page.nextPageToken;
  } while (pageToken);
  return scores;
}

describe("relevanceScore", () => {
  it.each(["create an API key", "quota", "how do I connect Cursor to the server", "wrangler d1 migrations apply"])(
    "is in [0, 1] on every result of %s and never rises down the list, across pages",
    async (query) => {
      const scores = await allPages(query);
      expect(scores.length).toBeGreaterThan(5);
      for (const score of scores) expect(score).toBeGreaterThanOrEqual(0);
      for (const score of scores) expect(score).toBeLessThanOrEqual(1);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
      expect(scores[0]).toBeGreaterThan(scores[scores.length - 1] as number);
    },
  );

  it("is the share of the question the best chunk holds at the top: high when one section has every word, low when the corpus lacks the rare ones", async () => {
    const [covered] = (await searchDocuments(env.DB, { query: "revoke an API key" })).results;
    const [lacking] = (await searchDocuments(env.DB, { query: "kubernetes helm chart key rotation" })).results;
    expect(covered?.relevanceScore).toBe(1);
    expect(lacking?.relevanceScore).toBeLessThan(0.5);
  });

  it("is the order's own: the retrieval's order and the scores' agree", async () => {
    const { ranked } = await retrieveChunks(env.DB, "rate limits per minute", { compiled: null }, DEFAULT_RANKING);
    const { results } = await searchDocuments(env.DB, { query: "rate limits per minute", pageSize: 20 });
    expect(results.map((hit) => `${hit.parent}#${hit.id} ${hit.relevanceScore}`)).toEqual(ranked.slice(0, results.length).map((chunk) => `${chunk.parent}#${chunk.id} ${chunk.relevance}`));
  });

  it("is shown in the text a model reads", async () => {
    const result = await searchDocuments(env.DB, { query: "create an API key", pageSize: 2 });
    expect(formatSearchResult("create an API key", result)).toContain(`- relevance: ${result.results[0]?.relevanceScore}`);
  });

  it("drops the results below minScore, and only those, page after page", async () => {
    const query = "answer_query quota per day";
    const all = await allPages(query);
    const cut = all[Math.floor(all.length / 2)] as number;
    const kept = await allPages(query, cut);
    expect(kept).toEqual(all.filter((score) => score >= cut));
    expect(kept.length).toBeLessThan(all.length);
    expect(await allPages("kubernetes helm chart key rotation", 0.9)).toEqual([]);
  });
});
