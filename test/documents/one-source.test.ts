// Two documentation sites side by side (issue 21): a question whose words
// belong to one of them is searched and answered from that one; a question
// both fit still finds both.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { answerQuery } from "../../src/documents/answer/answer-query.ts";
import { prepareSite, siteFor } from "../../src/documents/ingest/prepare-pages.ts";
import { searchDocuments } from "../../src/documents/search/search-documents.ts";
import { syncDocuments } from "../../src/documents/ingest/write-corpus.ts";

const lantern = siteFor("https://lantern.example.com");
const harbor = siteFor("https://harbor.example.com");

const section = (title: string, text: string) => `## ${title}\n\n${text}`;

beforeAll(async () => {
  // Lantern's own word is "isolates"; Harbor's is "goroutines"; both talk about memory.
  const lanternPages = [
    {
      path: "isolates.md",
      text: `# Isolates\n\n${[
        section("What isolates are", "Isolates are independent workers. Each of the isolates has its own memory heap, so isolates never share mutable state."),
        section("Sending messages between isolates", "Isolates communicate by passing messages through ports; a message is copied into the receiving isolate's memory."),
        section("Exiting isolates", "When one of the isolates exits it can hand its last message to another without copying."),
        section("Spawning isolates", "Spawning isolates costs some memory for each new heap."),
        section("Isolates and the event loop", "Each of the isolates runs its own event loop."),
      ].join("\n\n")}`,
    },
  ];
  const harborPages = [
    {
      path: "memory.md",
      text: `# Memory\n\n${[
        section(
          "Isolation and sharing memory",
          "Goroutines share memory without isolation: to share memory safely, share memory by communicating, and keep isolation of shared memory behind channels.",
        ),
        section("The memory model", "The memory model says when one goroutine's write to shared memory is seen by another goroutine."),
        section("Goroutines", "Goroutines are cheap; thousands of goroutines fit in a little memory."),
        section("Garbage collection", "The collector frees memory that no goroutine can reach."),
        section("Stacks", "Each of the goroutines starts with a small stack that grows in memory as needed."),
        section("Channels", "Channels pass values between goroutines without shared memory."),
        ...["Scheduling", "Timers", "Profiling", "Tracing", "Select", "Mutexes"].map((title) => section(title, `${title} works with goroutines and memory.`)),
      ].join("\n\n")}`,
    },
  ];
  for (const [site, pages] of [
    [lantern, lanternPages],
    [harbor, harborPages],
  ] as const) {
    const { documents } = await prepareSite(pages, site);
    await syncDocuments(env.DB, site.baseUri, documents, { prune: false });
  }
});

describe("a question whose words belong to one documentation site", () => {
  const query = "do isolates share memory with each other?";

  it("is searched in that site first", async () => {
    const { results } = await searchDocuments(env.DB, { query, pageSize: 3 });
    expect(results[0]?.document.dataSource).toBe(lantern.dataSource);
  });

  it("is answered from that site alone, every reference a page a sentence of the answer cites", async () => {
    const answer = await answerQuery(env.DB, { query });
    expect(answer.references.length).toBeGreaterThan(0);
    expect(answer.references.every((name) => name.startsWith("documents/lantern.example.com/"))).toBe(true);
    const cited = new Set(answer.citations.flatMap((citation) => citation.sources.map((source) => answer.references[source.referenceIndex])));
    expect([...cited].sort()).toEqual([...answer.references].sort());
  });
});

describe("a question both sites fit, naming neither", () => {
  it("still finds pages of both", async () => {
    const { results } = await searchDocuments(env.DB, { query: "how much memory does each worker use?", pageSize: 10 });
    const sources = new Set(results.map((hit) => hit.document.dataSource));
    expect(sources).toEqual(new Set([lantern.dataSource, harbor.dataSource]));
  });
});
