// Almanac's own pages step aside from the ranked top, not from every match
// (search/candidates.ts, bestStepAside): however many of their chunks rank first, the
// candidates are still the RANKED_CANDIDATES best of the user's pages.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CORPUS } from "../../src/documents/default-corpus.ts";
import { prepareSite, siteFor } from "../../src/documents/ingest/prepare-pages.ts";
import { planRetrieval } from "../../src/documents/search/retrieve.ts";
import { RANKED_CANDIDATES, fetchCandidates } from "../../src/documents/search/candidates.ts";
import { DEFAULT_RANKING } from "../../src/documents/search/ranking-weights.ts";
import { syncDocuments } from "../../src/documents/ingest/write-corpus.ts";
import { d1Statements } from "../../src/d1/statements.ts";
import { loadCorpus } from "../support/corpus.ts";

const userSite = siteFor("https://many.example.com");
const USER_CHUNKS = RANKED_CANDIDATES + 40;

beforeAll(async () => {
  await loadCorpus();
  // Each section names the quota once among many other words, so Almanac's pages on quotas outrank all of them.
  const filler = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa";
  const text = Array.from({ length: USER_CHUNKS }, (_, i) => `## Part ${i}\n\n${filler} quota ${filler} ${filler}`).join("\n\n");
  const { documents } = await prepareSite([{ path: "parts.md", text: `# Parts\n\n${text}` }], userSite);
  await syncDocuments(env.DB, userSite.baseUri, documents, { prune: false });
});

describe("Almanac's own pages among many matches", () => {
  it("leave the whole top to the user's pages, even when theirs rank first", async () => {
    const plan = planRetrieval("quota", { compiled: null });
    if (!plan) throw new Error("no plan");
    expect(plan.unlessAlone).toBe(DEFAULT_CORPUS.baseUri);
    // Without stepping aside, Almanac's chunks on quotas would be first.
    const { candidates: all } = await fetchCandidates(d1Statements(env.DB), { ...plan, unlessAlone: undefined }, DEFAULT_RANKING);
    expect(all[0]?.parent).toMatch(/^documents\/almanac\.dev\//);
    const { candidates } = await fetchCandidates(d1Statements(env.DB), plan, DEFAULT_RANKING);
    expect(candidates).toHaveLength(RANKED_CANDIDATES);
    expect(candidates.every((candidate) => candidate.parent === "documents/many.example.com/parts")).toBe(true);
  });
});
