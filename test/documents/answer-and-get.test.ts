import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { NO_GROUNDED_ANSWER, answerQuery } from "../../src/documents/answer.ts";
import { getDocuments } from "../../src/documents/get.ts";
import { AlmanacError } from "../../src/errors.ts";
import { corpusName, loadCorpus } from "./corpus.ts";

let corpusText = new Map<string, string>();

beforeAll(async () => {
  corpusText = new Map((await loadCorpus()).map((doc) => [doc.name, doc.content]));
});

describe("answer_query's extractive answerer", () => {
  it.each([
    ["How do I change the port that npm start uses?", /PORT/],
    ["Which tools consume the answer_query quota?", /Only `answer_query` consumes quota/],
    ["How do I revoke an API key?", /revoke/],
  ])("answers %s from the documentation", async (query, expected) => {
    const answer = await answerQuery(env.DB, { query });
    expect(answer.answerText).toMatch(expected);
    expect(answer.references.length).toBeGreaterThan(0);
  });

  it("copies every cited span verbatim from the page it cites (grounding)", async () => {
    const answer = await answerQuery(env.DB, { query: "How does Almanac protect against DNS rebinding?" });
    const bytes = new TextEncoder().encode(answer.answerText);
    const decoder = new TextDecoder();
    expect(answer.citations.length).toBeGreaterThan(0);
    for (const citation of answer.citations) {
      const span = decoder.decode(bytes.slice(citation.startIndex, citation.endIndex));
      const reference = answer.references[citation.sources[0]?.referenceIndex ?? -1] ?? "";
      const page = (corpusText.get(reference) ?? "").replace(/\[([^\]]+)\]\([^)]*\)/g, "$1").replace(/\s+/g, " ");
      expect(page, span).toContain(span);
    }
  });

  it("cites spans that cover the answer and point at real references", async () => {
    const answer = await answerQuery(env.DB, { query: "What does search_documents return?" });
    const bytes = new TextEncoder().encode(answer.answerText).length;
    let previousEnd = 0;
    for (const citation of answer.citations) {
      expect(citation.startIndex).toBeGreaterThanOrEqual(previousEnd);
      expect(citation.endIndex).toBeLessThanOrEqual(bytes);
      previousEnd = citation.endIndex;
    }
    expect(previousEnd).toBe(bytes);
  });

  it("is honest when nothing relevant exists", async () => {
    expect(await answerQuery(env.DB, { query: "quantum chromodynamics gluon" })).toEqual({ answerText: NO_GROUNDED_ANSWER, references: [], citations: [] });
    expect((await answerQuery(env.DB, { query: "🙂 ((" })).references).toEqual([]);
  });
});

describe("get_documents", () => {
  it("keeps the order of names, repeats included", async () => {
    const names = [corpusName("filters"), "documents/almanac.dev/docs", corpusName("filters")];
    expect((await getDocuments(env.DB, names)).map((doc) => doc.name)).toEqual(names);
  });

  it("fails with NOT_FOUND listing every missing name, all or nothing", async () => {
    const error = await getDocuments(env.DB, [corpusName("filters"), corpusName("x"), corpusName("y")]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AlmanacError);
    expect((error as AlmanacError).status).toBe("NOT_FOUND");
    expect((error as AlmanacError).message).toContain(`"${corpusName("x")}", "${corpusName("y")}"`);
  });

  it.each([
    [["dart.dev/language"], /names\[0\].*documents\/\{host\}\/\{path\}/],
    [[`documents/${"x".repeat(500)}`], /at most 500/],
  ])("refuses %# with INVALID_ARGUMENT", async (names, message) => {
    const error = await getDocuments(env.DB, names).catch((e: unknown) => e);
    expect((error as AlmanacError).status).toBe("INVALID_ARGUMENT");
    expect((error as AlmanacError).message).toMatch(message);
  });
});
