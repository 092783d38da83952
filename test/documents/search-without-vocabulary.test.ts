// A deployed database whose migrations stop before 0004 has no chunks_vocab table: search must still answer.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { answerQuery } from "../../src/documents/answer/answer-query.ts";
import { searchDocuments } from "../../src/documents/search/search-documents.ts";
import { corpusName, loadCorpus } from "../support/corpus.ts";

beforeAll(async () => {
  await loadCorpus();
  await env.DB.prepare("DROP TABLE chunks_vocab").run();
});

describe("search without the index vocabulary", () => {
  it("still ranks, with every word weighed alike", async () => {
    const { results } = await searchDocuments(env.DB, { query: "connect Claude Desktop" });
    expect(results[0]?.parent).toBe(corpusName("clients/claude-desktop"));
  });

  it("still answers", async () => {
    expect((await answerQuery(env.DB, { query: "How do I revoke an API key?" })).references).toContain(corpusName("api-keys-and-quotas"));
  });
});
