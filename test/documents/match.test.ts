// The rarest words choose search candidates: a question of common words must
// not make FTS5 score most of the corpus (BENCHMARKS.md, "common" queries).
import { describe, expect, it } from "vitest";
import { MATCH_POSTINGS_BUDGET, matchFor } from "../../src/documents/match.ts";
import { matchTerms } from "../../src/documents/query-text.ts";

const frequencies = (entries: Record<string, number>) => new Map(Object.entries(entries));

describe("which words choose the candidates", () => {
  it("ORs every word when the index has no statistics (a database without the vocabulary)", () => {
    expect(matchFor(matchTerms("retry backoff error"), null).expression).toBe('"retry" OR "backoff" OR "error"');
  });

  it("leaves a word found in most chunks out while rarer words fit the budget", () => {
    const plan = matchFor(matchTerms("retry backoff error"), frequencies({ retri: 900, backoff: 300, error: 60_000 }));
    expect(plan).toEqual({ expression: '"retry" OR "backoff"', allRequired: false, rarest: '"backoff"' });
  });

  it("takes words rarest first until their postings pass the budget, in the query's order", () => {
    const plan = matchFor(matchTerms("alpha beta gamma delta"), frequencies({ alpha: 12_000, beta: 400, gamma: 6000, delta: 8000 }));
    // beta (400) + gamma (6,000) + delta (8,000) fit 20,000; alpha (12,000) would not.
    expect(MATCH_POSTINGS_BUDGET).toBe(20_000);
    expect(plan.expression).toBe('"beta" OR "gamma" OR "delta"');
  });

  it("requires the two rarest words when even the rarest is commoner than the budget", () => {
    const plan = matchFor(matchTerms("what is the value of the server error"), frequencies({ valu: 50_000, server: 30_000, error: 26_000 }));
    expect(plan).toEqual({ expression: '"server" AND "error"', allRequired: true, rarest: '"error"' });
  });

  it("counts a word no chunk contains as free, so it never crowds out the others", () => {
    expect(matchFor(matchTerms("zeppelin retry"), frequencies({ retri: 4000 })).expression).toBe('"zeppelin" OR "retry"');
  });

  it("weighs an identifier by its rarest part (its matches are no more than that part's)", () => {
    const plan = matchFor(matchTerms("get_documents error"), frequencies({ get: 40_000, document: 900, error: 30_000 }));
    expect(plan.expression).toBe('"get_documents"');
  });

  it("keeps a one-word query as it is", () => {
    expect(matchFor(matchTerms("function"), frequencies({ function: 90_000 }))).toEqual({ expression: '"function"', allRequired: false, rarest: '"function"' });
  });
});
