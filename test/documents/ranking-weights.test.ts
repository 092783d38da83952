// The ranking's weights are a parameter, so a variant changes what search
// ranks: `npm run eval:tune` measures the weights it is given. The BM25
// column weights go into the candidate SQL; when they were frozen at module
// load, a column-weight variant silently ranked with the defaults.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { ReadConsistency } from "../../src/d1/sessions.ts";
import { DEFAULT_ANSWERING, answerQuery } from "../../src/documents/answer/answer-query.ts";
import { prepareSite, siteFor } from "../../src/documents/ingest/prepare-pages.ts";
import { syncDocuments } from "../../src/documents/ingest/write-corpus.ts";
import { DEFAULT_RANKING, type RankingWeights } from "../../src/documents/search/ranking-weights.ts";
import { searchDocuments } from "../../src/documents/search/search-documents.ts";
import { searchDocumentsTool } from "../../src/tools/search-documents.ts";

const site = siteFor("https://weights.example.com");
// "okapi" is in one page's title only (and so once in its chunk's heading line), and six times in the other's text.
const TITLED = "documents/weights.example.com/okapi-guide";
const MENTIONED = "documents/weights.example.com/forest-animals";

const titleHeavy: RankingWeights = { ...DEFAULT_RANKING, columnWeights: [50, 1, 1] };
const contentHeavy: RankingWeights = { ...DEFAULT_RANKING, columnWeights: [0, 0, 50] };

beforeAll(async () => {
  const { documents } = await prepareSite(
    [
      { path: "okapi-guide.md", text: "# Okapi guide\n\n## Visiting hours\n\nThe reserve opens at nine and closes at dusk; tickets are sold at the gate.\n" },
      {
        path: "forest-animals.md",
        text: "# Forest animals\n\n## Stripes\n\nThe okapi lives in the rainforest. An okapi eats leaves; okapi calves hide. Each okapi has striped legs, and okapi herds are rare: the okapi is shy.\n",
      },
    ],
    site,
  );
  await syncDocuments(env.DB, site.baseUri, documents, { prune: false });
});

async function parents(ranking?: RankingWeights): Promise<string[]> {
  return (await searchDocuments(env.DB, { query: "okapi", filter: 'data_source = "weights.example.com"' }, ranking)).results.map((hit) => hit.parent);
}

describe("ranking weights", () => {
  it("a title-heavy and a content-heavy column weighting rank the two pages in opposite orders", async () => {
    expect(await parents(titleHeavy)).toEqual([TITLED, MENTIONED]);
    expect(await parents(contentHeavy)).toEqual([MENTIONED, TITLED]);
  });

  it("the defaults are what search ranks with when the caller gives none", async () => {
    expect(await parents()).toEqual(await parents(DEFAULT_RANKING));
  });

  it("reach search through the tool's context, the way eval:tune passes them", async () => {
    const run = (ranking: RankingWeights) =>
      searchDocumentsTool.run(env, { query: "okapi" }, { reads: new ReadConsistency(), weights: { ranking, answering: DEFAULT_ANSWERING } });
    expect((await run(titleHeavy)).structured.results[0]?.parent).toBe(TITLED);
    expect((await run(contentHeavy)).structured.results[0]?.parent).toBe(MENTIONED);
  });

  it("and the answer's weights reach answers too", async () => {
    const answer = (answering: typeof DEFAULT_ANSWERING) =>
      answerQuery(env.DB, { query: "okapi", filter: 'data_source = "weights.example.com"' }, { ranking: contentHeavy, answering });
    expect((await answer(DEFAULT_ANSWERING)).references).toEqual([MENTIONED, TITLED]);
    // No See also, and no second passage for a short first one: the passage's page alone.
    const alone = await answer({ ...DEFAULT_ANSWERING, seeAlso: 0, thinChars: 0 });
    expect(alone.references).toEqual([MENTIONED]);
    expect(alone.citations.every((citation) => citation.sources[0]?.referenceIndex === 0)).toBe(true);
  });

  it("so does the gate that decides whether the question is answerable", async () => {
    const answer = (answerableCoverage: number) =>
      answerQuery(env.DB, { query: "okapi stripes", filter: 'data_source = "weights.example.com"' }, { ranking: DEFAULT_RANKING, answering: { ...DEFAULT_ANSWERING, answerableCoverage } });
    expect((await answer(DEFAULT_ANSWERING.answerableCoverage)).references).toContain(MENTIONED);
    // No chunk covers more than all of the question's words.
    const declined = await answer(1.01);
    expect(declined.answerText).toMatch(/^No grounded answer: .* The closest pages are /);
    expect(declined.references).toEqual([]);
  });

  it("defaults cannot be edited in place: a variant is a new object", () => {
    expect(Object.isFrozen(DEFAULT_RANKING) && Object.isFrozen(DEFAULT_RANKING.columnWeights) && Object.isFrozen(DEFAULT_ANSWERING)).toBe(true);
  });
});
