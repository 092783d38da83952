// An answer draws on the pages search ranks first (issue 21): each top page
// with a sentence on the question gives its best one, every reference is a
// page a sentence cites, and a question the pages do not answer is declined.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_ANSWER_WEIGHTS, NO_GROUNDED_ANSWER, answerQuery, type Answer } from "../../src/documents/answer/answer-query.ts";
import { prepareSite, siteFor } from "../../src/documents/ingest/prepare-pages.ts";
import { syncDocuments } from "../../src/documents/ingest/write-corpus.ts";

const site = siteFor("https://relay.example.com");
const page = (name: string) => `documents/relay.example.com/${name}`;

beforeAll(async () => {
  const pages = [
    {
      path: "retries.md",
      text: "# Retries\n\nRelay retries a failed delivery with exponential backoff: each retry waits twice as long as the one before, up to `max_backoff`.\n\nRetries stop after `max_attempts` deliveries.",
    },
    {
      path: "webhooks.md",
      text: "# Webhooks\n\nA webhook delivery that fails is retried with backoff, so a receiver that is down for a minute still gets every event.",
    },
    {
      path: "limits.md",
      text: "# Limits\n\nA sender that exceeds its rate limit gets HTTP 429; its deliveries are retried with backoff once the window resets.",
    },
    { path: "install.md", text: "# Install\n\nInstall Relay with `npm install relay-cli`, then run `relay init` in your project folder." },
  ];
  const { documents } = await prepareSite(pages, site);
  await syncDocuments(env.DB, site.baseUri, documents, { prune: false });
});

/** The references the citations point at, in order of first citation. */
function citedPages(answer: Answer): string[] {
  const cited: string[] = [];
  for (const citation of answer.citations)
    for (const source of citation.sources) {
      const name = answer.references[source.referenceIndex];
      if (name !== undefined && !cited.includes(name)) cited.push(name);
    }
  return cited;
}

describe("an answer over several pages on the question", () => {
  const query = "how does relay back off when it retries a failed delivery?";

  it("quotes the best sentence of each top page that speaks to the question, and only those pages", async () => {
    const answer = await answerQuery(env.DB, { query });
    expect(answer.references).toEqual(expect.arrayContaining([page("retries"), page("webhooks"), page("limits")]));
    expect(answer.references).not.toContain(page("install"));
    expect(answer.answerText).toMatch(/^Relay retries a failed delivery with exponential backoff/);
  });

  it("lists as references exactly the pages its sentences cite, in the order it cites them", async () => {
    const answer = await answerQuery(env.DB, { query });
    expect(citedPages(answer)).toEqual(answer.references);
  });

  it("cites fewer pages when the top pages are not asked for (topPages 0)", async () => {
    const answering = { ...DEFAULT_ANSWER_WEIGHTS.answering, topPages: 0, relativeFloor: 0.9 };
    const narrow = await answerQuery(env.DB, { query }, { ...DEFAULT_ANSWER_WEIGHTS, answering });
    expect(narrow.references.length).toBeLessThan((await answerQuery(env.DB, { query })).references.length);
    expect(citedPages(narrow)).toEqual(narrow.references);
  });
});

describe("a question the pages do not answer", () => {
  it("is declined with no references rather than answered with a near-miss", async () => {
    const answer = await answerQuery(env.DB, { query: "which gRPC-Go release added xDS federation support to the Envoy control plane?" });
    expect(answer).toEqual({ answerText: NO_GROUNDED_ANSWER, references: [], citations: [] });
  });
});
