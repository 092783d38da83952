import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { NO_GROUNDED_ANSWER, answerQuery } from "../../src/documents/answer/answer-query.ts";
import { getDocuments } from "../../src/documents/read/get-documents.ts";
import { AlmanacError } from "../../src/errors.ts";
import { corpusName, loadCorpus } from "../support/corpus.ts";

let corpusText = new Map<string, string>();

beforeAll(async () => {
  corpusText = new Map((await loadCorpus()).map((doc) => [doc.name, doc.content]));
});

describe("answer_query's extractive answerer", () => {
  it.each([
    ["How do I change the port that npm start uses?", /PORT/],
    ["Which tools consume the answer_query quota?", /Only `answer_query` consumes the answer quota/],
    ["How do I revoke an API key?", /revoke/],
  ])("answers %s from the documentation", async (query, expected) => {
    const answer = await answerQuery(env.DB, { query });
    expect(answer.answerText).toMatch(expected);
    expect(answer.references.length).toBeGreaterThan(0);
  });

  it.each(["How does Almanac protect against DNS rebinding?", "How do I connect Claude Code to Almanac?", "search_documents vs answer_query"])(
    "copies every cited span verbatim from the page it cites (grounding): %s",
    async (query) => {
      const answer = await answerQuery(env.DB, { query });
      const bytes = new TextEncoder().encode(answer.answerText);
      const decoder = new TextDecoder();
      const flat = (text: string) => text.replace(/\[([^\]]+)\]\([^)]*\)/g, "$1").replace(/\s+/g, " ");
      expect(answer.citations.length).toBeGreaterThan(0);
      for (const citation of answer.citations) {
        const span = decoder.decode(bytes.slice(citation.startIndex, citation.endIndex));
        const reference = answer.references[citation.sources[0]?.referenceIndex ?? -1] ?? "";
        // A table row is cited as its cells joined by " — " (sentences.ts tableRowText): each cell is copied.
        const parts = span.includes(" — ") ? span.replace(/\.$/, "").split(" — ") : [span];
        for (const part of parts) expect(flat(corpusText.get(reference) ?? ""), span).toContain(flat(part));
      }
    },
  );

  // Regression: the answer used to lead with the sentence after the `claude mcp add` command instead of the command.
  it("answers a how-to question with the command and the sentence that introduces it", async () => {
    const answer = await answerQuery(env.DB, { query: "How do I connect Claude Code to Almanac?" });
    expect(answer.answerText).toMatch(/```[a-z]*\nclaude mcp add --transport http almanac http:\/\/localhost:8787\/mcp/);
    expect(answer.references[0]).toBe(corpusName("clients/claude-code"));
  });

  it("draws on both pages when the question compares two things", async () => {
    const answer = await answerQuery(env.DB, { query: "What is the difference between search_documents and answer_query?" });
    expect(answer.references).toEqual(expect.arrayContaining([corpusName("tools/search-documents"), corpusName("tools/answer-query")]));
  });

  it("leads a fact question with the sentence that states the fact", async () => {
    const answer = await answerQuery(env.DB, { query: "how long can a section of a page get before the ingester splits it again at paragraph breaks?" });
    expect(answer.answerText).toMatch(/^How pages are split into chunks\n\nEach page is split at its headings \(`#` to `######`, and HTML `<h1>`–`<h6>`\), and sections longer than 1,600 characters again at paragraph breaks/);
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

  // Regression: a gate demanding one sentence covering 40 % of the words refused realistic questions.
  it("answers a long question phrased unlike the docs instead of declining it", async () => {
    const answer = await answerQuery(env.DB, {
      query:
        "I'm setting up a bot for my team and we keep getting HTTP 429 after a few questions in a row. We don't have a key yet. What exactly are the limits for anonymous callers and how do we get more?",
    });
    expect(answer.answerText).not.toBe(NO_GROUNDED_ANSWER);
    expect(answer.references).toContain(corpusName("api-keys-and-quotas"));
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
