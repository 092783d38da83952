// The top page's own chunks beyond the candidates can answer (issue 21):
// search ranks the page first, but the section that states the fact is the
// page's tenth chunk, below the 8 chunks an answer reads.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_ANSWER_WEIGHTS, answerQuery } from "../../src/documents/answer/answer-query.ts";
import { retrieveChunks } from "../../src/documents/search/retrieve.ts";
import { prepareSite, siteFor } from "../../src/documents/ingest/prepare-pages.ts";
import { syncDocuments } from "../../src/documents/ingest/write-corpus.ts";

const site = siteFor("https://beacon.example.com");
const logsPage = "documents/beacon.example.com/logs";
const query = "how long does beacon keep delivery logs?";
const fact = "Beacon keeps delivery logs for 30 days, then deletes them.";
const aside = "Storage sits in the region you chose at sign-up, encrypted at rest with a key per workspace, and an export job can copy it to your own bucket every night.";

beforeAll(async () => {
  const sections = ["Reading", "Filtering", "Sharing", "Exporting", "Searching", "Sorting", "Printing", "Linking"].map(
    (verb) => `## ${verb} delivery logs\n\n${verb} the delivery logs Beacon keeps works from the dashboard or the command line.`,
  );
  const pages = [
    {
      path: "logs.md",
      text: ["# Delivery logs", "This page explains how long Beacon keeps delivery logs and what each delivery log holds.", ...sections, "## Retention", `${aside} ${aside} ${fact} ${aside} ${aside}`].join("\n\n"),
    },
    // Other pages that repeat the question's words, each a little differently.
    ...["status code", "latency", "reply body", "alert rules", "retry count", "signature", "payload size", "receiver address", "event type"].map((field, index) => ({
      path: `field-${index}.md`,
      text: `# The ${field} field\n\nBeacon keeps the ${field} of each delivery in its delivery logs${", and in its delivery logs again".repeat(index % 3)}.`,
    })),
    // Pages on other things, so the question's words are as rare as in real documentation.
    ...["billing", "teams", "tokens", "regions", "pricing", "support", "privacy", "sdk", "cli", "changelog"].map((topic) => ({
      path: `${topic}.md`,
      text: `# ${topic}\n\nThis page explains ${topic} for workspace owners, with examples for the command line and the console.`,
    })),
  ];
  const { documents } = await prepareSite(pages, site);
  await syncDocuments(env.DB, site.baseUri, documents, { prune: false });
});

describe("a fact in a lower-ranked section of the top page", () => {
  it("sits in a section ranked below the answer's 8 candidate chunks, on the page ranked first", async () => {
    const { ranked } = await retrieveChunks(env.DB, query, { compiled: null }, DEFAULT_ANSWER_WEIGHTS.ranking);
    expect(ranked[0]?.parent).toBe(logsPage);
    expect(ranked.findIndex((hit) => hit.content.includes(fact))).toBeGreaterThanOrEqual(8);
  });

  it("is quoted, because the top page's next chunks give sentences too", async () => {
    const answer = await answerQuery(env.DB, { query });
    expect(answer.answerText).toContain(fact);
    expect(answer.references[0]).toBe(logsPage);
  });

  it("is not quoted when only the candidates give sentences (topPageChunks 0)", async () => {
    const answering = { ...DEFAULT_ANSWER_WEIGHTS.answering, topPageChunks: 0 };
    const answer = await answerQuery(env.DB, { query }, { ...DEFAULT_ANSWER_WEIGHTS, answering });
    expect(answer.references).toContain(logsPage);
    expect(answer.answerText).not.toContain("30 days");
  });
});

describe("a sentence that repeats the question's words and adds the fact", () => {
  const ledger = siteFor("https://ledger.example.com");
  const exportQuery = "in what format does ledger export a report?";

  beforeAll(async () => {
    const pages = [
      {
        path: "reports.md",
        text: "# Reports\n\nLedger can export a report in one format or another from the reports page.\n\n## Files\n\nLedger exports each report as CSV.",
      },
      { path: "start.md", text: "# Getting started\n\nSign in to Ledger and open the reports page to see this month's entries." },
    ];
    const { documents } = await prepareSite(pages, ledger);
    await syncDocuments(env.DB, ledger.baseUri, documents, { prune: false });
  });

  it("is not padding: the answer keeps it beside the lead it shares those words with", async () => {
    const answer = await answerQuery(env.DB, { query: exportQuery });
    expect(answer.answerText).toContain("Ledger exports each report as CSV.");
  });

  it("was dropped as a repeat of the lead when the question's own words counted as overlap", async () => {
    const answering = { ...DEFAULT_ANSWER_WEIGHTS.answering, redundancyBesideQuestion: false };
    const answer = await answerQuery(env.DB, { query: exportQuery }, { ...DEFAULT_ANSWER_WEIGHTS, answering });
    expect(answer.answerText).toContain("Ledger can export a report");
    expect(answer.answerText).not.toContain("CSV");
  });
});
