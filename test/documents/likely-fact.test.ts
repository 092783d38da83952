// A paraphrased question shares few words with the sentence that answers it: "make the cache
// forget what it remembered" is answered by "To start over from nothing, run: gadget clean --all".
// After its lead, an answer is filled with the sentences the fitted model finds likeliest to state
// what was asked (sentence-model.ts), not those that merely repeat the question's words.
import { env } from "cloudflare:test";
import { beforeAll, expect, it } from "vitest";
import { answerQuery, DEFAULT_ANSWERING, type AnsweringWeights } from "../../src/documents/answer/answer-query.ts";
import { DEFAULT_RANKING } from "../../src/documents/search/ranking-weights.ts";
import { likelihoodOf, type SentenceFeatures } from "../../src/documents/answer/sentence-model.ts";
import { prepareSite, siteFor } from "../../src/documents/ingest/prepare-pages.ts";
import { searchDocuments } from "../../src/documents/search/search-documents.ts";
import { syncDocuments } from "../../src/documents/ingest/write-corpus.ts";

const site = siteFor("https://gadget.example.com");
const page = (name: string) => `documents/gadget.example.com/${name}`;
const purge = "To start over from nothing, run:";
const command = "gadget clean --all";

beforeAll(async () => {
  const cache = [
    "# gadget cache",
    "",
    purge,
    "",
    "```console",
    command,
    "```",
    "",
    "Everything the gadget remembered from earlier builds is kept in the cache folder of the project, so a build that changed nothing is quick.",
    "The cache folder is created by the first build of a project.",
    // Sentences on the question's words that answer nothing; the hand-made score ranked them above the command.
    "Builds of a project remember a great deal in the cache folder: the hashes of every source file, the flags each compiler was given, the versions of the toolchains that ran, the environment variables that were read, the outputs each step wrote and the time each step took, all of it kept so that a later build can compare what changed and skip what did not, which is why the cache folder of a busy project grows large.",
    "Each build reads the cache folder before it starts and writes to the cache folder when it ends.",
    "The cache folder can be shared between the builds of one project, never between projects.",
  ].join("\n");
  // Other pages that mention the gadget and earlier builds, as a real site's neighbours do.
  const steps = ["compile", "link", "test", "package", "sign", "upload", "index", "lint"].map((step) => ({
    path: `${step}.md`,
    text: `# gadget ${step}\n\nThe gadget ${step} step runs after the earlier steps of a build have finished.`,
  }));
  const { documents } = await prepareSite([{ path: "cache.md", text: cache }, ...steps], site);
  await syncDocuments(env.DB, site.baseUri, documents, { prune: false });
});

it("fills the answer with the sentence likeliest to answer, though it shares few of the question's words", async () => {
  const query = "how do I make the gadget cache forget everything it remembered from earlier builds?";
  const search = await searchDocuments(env.DB, { query, pageSize: 3 });
  // The premise: search ranks the cache page first; the sentence that answers names none of "forget", "remembered", "earlier", "builds".
  expect(search.results[0]?.parent).toBe(page("cache"));
  // Room for the lead and one sentence more, so the fill's first choice is what is measured.
  const answering: AnsweringWeights = { ...DEFAULT_ANSWERING, maxContinuation: 0, maxSentences: 2 };
  const answer = await answerQuery(env.DB, { query }, { ranking: DEFAULT_RANKING, answering });
  expect(answer.answerText).toContain("Everything the gadget remembered from earlier builds is kept in the cache folder");
  expect(answer.answerText).toContain(`${purge}\n\n\`\`\`console\n${command}\n\`\`\``);
  expect(answer.references).toEqual([page("cache")]);
});

it("reads a sentence from a high-ranked chunk naming something concrete as likelier than one that only repeats the question", () => {
  const plain: SentenceFeatures = { questionShare: 0, headingShare: 0, centrality: 0, chunkPrior: 0, earlyPage: 0, code: 0, concrete: 0, long: 0, question: 0, fragment: 0 };
  const repeats = likelihoodOf({ ...plain, questionShare: 0.8, chunkPrior: 0.4, earlyPage: 0.2 });
  const states = likelihoodOf({ ...plain, questionShare: 0.2, chunkPrior: 1, earlyPage: 1, concrete: 1 });
  expect(states).toBeGreaterThan(repeats);
  expect(likelihoodOf({ ...plain, questionShare: 0.5, chunkPrior: 1, long: 1 })).toBeLessThan(likelihoodOf({ ...plain, questionShare: 0.5, chunkPrior: 1 }));
});
