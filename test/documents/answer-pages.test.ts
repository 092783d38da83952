// An answer is the passage that answers (issue 35), not a collage: the best
// section's sentences around the one that answers, the other top pages as
// "See also" references, nothing said twice, and an honest decline that
// names the closest pages when no passage covers the question.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_ANSWER_WEIGHTS, NO_GROUNDED_ANSWER, answerQuery } from "../../src/documents/answer/answer-query.ts";
import { prepareSite, siteFor } from "../../src/documents/ingest/prepare-pages.ts";
import { syncDocuments } from "../../src/documents/ingest/write-corpus.ts";

const site = siteFor("https://relay.example.com");
const page = (name: string) => `documents/relay.example.com/${name}`;
const BOILERPLATE = "Relay is free software released under the MIT licence by the Relay maintainers.";

beforeAll(async () => {
  const pages = [
    {
      path: "retries.md",
      text: [
        "# Retries",
        "",
        "## Backoff",
        "",
        "Relay backs off exponentially when it retries a failed delivery: each retry waits twice as long as the one before, up to `max_backoff`. The first retry waits one second.",
        "",
        "Retries stop after `max_attempts` deliveries.",
        "",
        BOILERPLATE,
        "",
        "## Dead letters",
        "",
        "A delivery that used up its attempts goes to the dead-letter queue, where `relay replay` sends it again.",
      ].join("\n"),
    },
    {
      path: "webhooks.md",
      text: `# Webhooks\n\nA webhook delivery that fails is retried with backoff, so a receiver that is down for a minute still gets every event.\n\n${BOILERPLATE}`,
    },
    {
      path: "limits.md",
      text: `# Limits\n\nA sender that exceeds its rate limit gets HTTP 429; its deliveries are retried with backoff once the window resets.\n\n${BOILERPLATE}`,
    },
    {
      path: "storage.md",
      text: `# Storage\n\nRelay keeps every event for seven days in its journal.\n\nOlder events are compacted into daily archives.\n\nNote: Relay keeps every event for seven days in its journal!\n\n${BOILERPLATE}`,
    },
    {
      path: "install.md",
      text: "# Install\n\nInstall Relay with npm, then start it in your project folder:\n\n```sh\nnpm install relay-cli\nrelay init\n```\n\nRelay needs Node 20 or later.",
    },
  ];
  const { documents } = await prepareSite(pages, site);
  await syncDocuments(env.DB, site.baseUri, documents, { prune: false });
});

/** The text each citation spans, as a reader cutting answerText by its UTF-8 byte offsets gets it. */
function cited(answer: { answerText: string; citations: { startIndex: number; endIndex: number }[] }): string[] {
  const bytes = new TextEncoder().encode(answer.answerText);
  return answer.citations.map((citation) => new TextDecoder().decode(bytes.slice(citation.startIndex, citation.endIndex)));
}

describe("an answer", () => {
  const query = "how does relay back off when it retries a failed delivery?";

  it("is the passage of the section that answers, the other top pages listed after it as See also", async () => {
    const answering = { ...DEFAULT_ANSWER_WEIGHTS.answering, thinChars: 0 };
    const answer = await answerQuery(env.DB, { query, filter: 'data_source = "relay.example.com"' }, { ...DEFAULT_ANSWER_WEIGHTS, answering });
    expect(answer.answerText).toMatch(/^Backoff\n\nRelay backs off exponentially when it retries a failed delivery: .* The first retry waits one second\.\n\nRetries stop after `max_attempts` deliveries\./);
    // Another section of the page (dead letters) and the other pages' sentences are not quoted.
    expect(answer.answerText).not.toContain("dead-letter");
    expect(answer.answerText).not.toContain("receiver that is down");
    expect(answer.answerText).toMatch(/\n\nSee also: (Webhooks|Limits); (Webhooks|Limits)(; (Install|Storage))*$/);
    expect(answer.references[0]).toBe(page("retries"));
    expect(answer.references.slice(1, 3).sort()).toEqual([page("limits"), page("webhooks")]);
  });

  it("follows a thin passage with the next best section's, under its own heading, and still quotes no other page", async () => {
    const answer = await answerQuery(env.DB, { query, filter: 'data_source = "relay.example.com"' });
    expect(answer.answerText).toMatch(
      /^Backoff\n\nRelay backs off exponentially [^\n]+\n\nRetries stop after `max_attempts` deliveries\.\n\n.*\n\nDead letters\n\nA delivery that used up its attempts goes to the dead-letter queue, where `relay replay` sends it again\.\n\nSee also: /s,
    );
    expect(answer.answerText).not.toContain("receiver that is down");
    expect(answer.references[0]).toBe(page("retries"));
    expect(new Set(answer.references).size).toBe(answer.references.length);
  });

  it("cites the heading and each sentence to the lead page and each See also title to its own page", async () => {
    const answer = await answerQuery(env.DB, { query, filter: 'data_source = "relay.example.com"' });
    const spans = cited(answer);
    const byReference = answer.citations.map((citation) => citation.sources.map((source) => source.referenceIndex));
    expect(spans.slice(0, 2)).toEqual(["Backoff", expect.stringMatching(/^Relay backs off exponentially/)]);
    expect(byReference.slice(0, 2)).toEqual([[0], [0]]);
    const seeAlso = spans.map((span, index) => ({ span, reference: byReference[index]?.[0] ?? -1 })).filter(({ reference }) => reference > 0);
    expect(seeAlso.map(({ span }) => span)).toEqual(answer.references.slice(1).map((name) => ({ [page("webhooks")]: "Webhooks", [page("limits")]: "Limits", [page("install")]: "Install", [page("storage")]: "Storage" })[name]));
    expect(seeAlso.map(({ reference }) => reference)).toEqual(answer.references.slice(1).map((_, index) => index + 1));
  });

  it("never says a sentence twice, though every page carries it", async () => {
    const answer = await answerQuery(env.DB, { query: "who maintains relay and what licence is it released under?", filter: 'data_source = "relay.example.com"' });
    expect(answer.answerText.split(BOILERPLATE)).toHaveLength(2);
  });

  it("says a sentence once though its section repeats it", async () => {
    const answer = await answerQuery(env.DB, { query: "how long does relay keep events in its journal?", filter: 'data_source = "relay.example.com"' });
    expect(answer.references[0]).toBe(page("storage"));
    expect(answer.answerText.match(/keeps every event for seven days/g)).toHaveLength(1);
    expect(answer.answerText).toContain("Older events are compacted into daily archives.");
  });

  it("shows the code sample when the question asks how", async () => {
    const answer = await answerQuery(env.DB, { query: "how do I install relay?", filter: 'data_source = "relay.example.com"' });
    expect(answer.answerText).toMatch(/^Install\n\nInstall Relay with npm, then start it in your project folder:\n\n```sh\nnpm install relay-cli\nrelay init\n```/);
    expect(answer.references[0]).toBe(page("install"));
  });

  it("lists no other pages with seeAlso 0", async () => {
    const answering = { ...DEFAULT_ANSWER_WEIGHTS.answering, seeAlso: 0 };
    const answer = await answerQuery(env.DB, { query, filter: 'data_source = "relay.example.com"' }, { ...DEFAULT_ANSWER_WEIGHTS, answering });
    expect(answer.references).toEqual([page("retries")]);
    expect(answer.answerText).not.toContain("See also");
  });
});

describe("a definition list", () => {
  const cli = siteFor("https://relay-cli.example.com");

  beforeAll(async () => {
    // Sphinx and others render a definition list as a short term line, then its description as a paragraph.
    const text = ["# Exit codes", "", "Running `relay send` can end with four exit codes:", "", "- Exit code 0:", "", "Every event was delivered", "", "- Exit code 1:", "", "Some deliveries failed and were queued again", "", "- Exit code 2:", "", "The configuration file could not be read", "", "- Exit code 3:", "", "No events were waiting to be delivered"].join("\n");
    const { documents } = await prepareSite([{ path: "exit-codes.md", text }], cli);
    await syncDocuments(env.DB, cli.baseUri, documents, { prune: false });
  });

  it("keeps each term with its description, so the answer says which code means what", async () => {
    const answer = await answerQuery(env.DB, { query: "which exit code does relay send give when no events were waiting?", filter: 'data_source = "relay-cli.example.com"' });
    expect(answer.answerText).toContain("Exit code 3: No events were waiting to be delivered");
    expect(answer.answerText).toContain("Exit code 0: Every event was delivered");
  });
});

describe("a question the pages do not answer", () => {
  it("is declined, citing nothing, and the decline names the closest pages it found", async () => {
    const answer = await answerQuery(env.DB, {
      query: "does relay support xDS federation with the Envoy control plane?",
      filter: 'data_source = "relay.example.com"',
    });
    expect(answer.references).toEqual([]);
    expect(answer.citations).toEqual([]);
    expect(answer.answerText).toMatch(/^No grounded answer: the documentation has nothing that answers this question\. The closest pages are “[^”]+” \(documents\/relay\.example\.com\/[a-z]+\)/);
  });

  it("is declined with the plain notice when search finds nothing at all", async () => {
    expect(await answerQuery(env.DB, { query: "zzyzx qqqwww", filter: 'data_source = "relay.example.com"' })).toEqual({ answerText: NO_GROUNDED_ANSWER, references: [], citations: [] });
  });
});
