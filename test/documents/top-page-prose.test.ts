// The page search ranks first is cited even when its best-ranked chunk is all code (a command and
// its output, as dart.dev's `dart info` page ends): its best chunk with prose gives the answer a sentence.
import { env } from "cloudflare:test";
import { beforeAll, expect, it } from "vitest";
import { answerQuery } from "../../src/documents/answer/answer-query.ts";
import { prepareSite, siteFor } from "../../src/documents/ingest/prepare-pages.ts";
import { searchDocuments } from "../../src/documents/search/search-documents.ts";
import { syncDocuments } from "../../src/documents/ingest/write-corpus.ts";

const site = siteFor("https://gadget.example.com");
const page = (name: string) => `documents/gadget.example.com/${name}`;
const tools = ["build", "test", "format", "publish", "serve", "clean", "upgrade", "bundle", "lint", "deploy"];

beforeAll(async () => {
  const pages = [
    {
      path: "doctor.md",
      text: [
        "# gadget doctor",
        "",
        "The `gadget doctor` command checks the installed toolchain and reports what is missing.",
        "It reads the configuration of every project it finds, compares the versions it needs with the versions installed, and lists each difference with the command that fixes it, so that a broken setup can be repaired before a build fails for reasons that have nothing to do with the code.",
        "",
        "## Example",
        "",
        "```console",
        "$ gadget doctor",
        "$ gadget doctor --verbose",
        "```",
      ].join("\n"),
    },
    ...tools.map((tool) => ({
      path: `${tool}.md`,
      text: `# gadget ${tool}\n\nRun gadget doctor first if gadget ${tool} stops with an error about the toolchain.`,
    })),
  ];
  const { documents } = await prepareSite(pages, site);
  await syncDocuments(env.DB, site.baseUri, documents, { prune: false });
});

it("cites the top page from its prose when the chunk that ranks it first is all code", async () => {
  const query = "gadget doctor";
  const search = await searchDocuments(env.DB, { query, pageSize: 3 });
  // The premise: the page ranks first through its code-only chunk.
  expect(search.results[0]?.parent).toBe(page("doctor"));
  expect(search.results[0]?.content).not.toMatch(/checks the installed toolchain/);
  const answer = await answerQuery(env.DB, { query });
  expect(answer.references[0]).toBe(page("doctor"));
  expect(answer.answerText).toContain("The `gadget doctor` command checks the installed toolchain and reports what is missing.");
});
