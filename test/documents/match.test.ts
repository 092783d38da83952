// The rarest words choose search candidates: a question of common words must
// not make FTS5 score most of the corpus (BENCHMARKS.md, "common" queries).
// The choice runs in SQL over the real index vocabulary, so it is tested on D1.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { MATCH_POSTINGS_BUDGET, chosenMatch, plainMatch } from "../../src/documents/search/choose-match.ts";
import { prepareSite, siteFor } from "../../src/documents/ingest/prepare-pages.ts";
import { matchTerms } from "../../src/documents/search/query-text.ts";
import { syncDocuments } from "../../src/documents/ingest/write-corpus.ts";
import { chosenExpression } from "../support/chosen-match.ts";

// Ten sections (chunks): "common" in all ten, "middle" in four, "other" in two, "rare" in one.
const sections = Array.from({ length: 10 }, (_, i) =>
  `## Section ${i}\n\n${["common", i < 4 ? "middle" : "", i < 2 ? "other" : "", i === 0 ? "rare" : ""].join(" ")}`,
);

beforeAll(async () => {
  const site = siteFor("https://words.example.com");
  const { documents } = await prepareSite([{ path: "words.md", text: `# Words\n\n${sections.join("\n\n")}` }], site);
  await syncDocuments(env.DB, site.baseUri, documents, { prune: false });
});

describe("which words choose the candidates", () => {
  it("takes words rarest first while their chunks fit the budget, in the query's order", async () => {
    expect(await chosenExpression("common middle rare", 5)).toBe('"middle" OR "rare"');
    expect(await chosenExpression("common middle rare other", 7)).toBe('"middle" OR "rare" OR "other"');
  });

  it("keeps every word while they all fit (a small corpus searches as before)", async () => {
    expect(await chosenExpression("common middle rare", MATCH_POSTINGS_BUDGET)).toBe('"common" OR "middle" OR "rare"');
  });

  it("requires the two rarest words when even the rarest is commoner than the budget", async () => {
    expect(await chosenExpression("common other middle", 1)).toBe('"other" AND "middle"');
  });

  it("counts a word no chunk contains as free, so it never crowds out the others", async () => {
    expect(await chosenExpression("zeppelin rare", 1)).toBe('"zeppelin" OR "rare"');
  });

  it("weighs an identifier by its rarest part (its matches are no more than that part's)", async () => {
    expect(await chosenExpression("common_rare middle", 1)).toBe('"common_rare"');
  });

  it("keeps a one-word query as it is, however common", async () => {
    expect(await chosenExpression("common", 1)).toBe('"common"');
  });

  it("ORs every word, bound as one value, when the vocabulary cannot be used", () => {
    expect(plainMatch(matchTerms("retry backoff error"))).toEqual({ with: "", expression: "?1", params: ['"retry" OR "backoff" OR "error"'] });
  });

  it("binds no more values than the statement leaves room for, or declines (D1 allows 100 per statement)", () => {
    const long = Array.from({ length: 40 }, (_, i) => `word${i}_part${i}_more${i}`).join(" ");
    expect(chosenMatch(matchTerms(long), { room: 98 })?.params.length).toBeLessThanOrEqual(98);
    expect(chosenMatch(matchTerms(long), { room: 40 })).toBeNull();
  });
});
