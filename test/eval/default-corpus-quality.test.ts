// The quality floor npm test guards: eval/questions/almanac.json through the real tools, beside the
// plain BM25 baseline, over the default corpus. A ranking or answer change that loses ground fails here.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { evaluate, figuresOf, type EvaluationRun } from "../../eval/evaluate.ts";
import { parseQuestionSet } from "../../eval/questions.ts";
import questionFile from "../../eval/questions/almanac.json?raw";
import { loadCorpus } from "../support/corpus.ts";

let run: EvaluationRun;

beforeAll(async () => {
  await loadCorpus();
  run = await evaluate(env, parseQuestionSet(questionFile).questions);
});

describe("search and answers on the default corpus (npm run eval -- eval/questions/almanac.json)", () => {
  it("finds the right page at least as well as the floor, and better than plain BM25", () => {
    const almanac = figuresOf(run.almanac);
    const baseline = figuresOf(run.baseline);
    expect(almanac.recallAt5).toBeGreaterThanOrEqual(0.95);
    expect(almanac.recallAt10).toBeGreaterThanOrEqual(0.97);
    expect(almanac.mrrAt10).toBeGreaterThanOrEqual(0.86);
    expect(almanac.mrrAt10).toBeGreaterThan(baseline.mrrAt10);
  });

  it("ranks keyword queries perfectly", () => {
    expect(figuresOf(run.almanac.filter((outcome) => outcome.kind === "keyword")).mrrAt10).toBe(1);
  });

  it("answers the answerable questions and cites a right page", () => {
    const almanac = figuresOf(run.almanac);
    expect(almanac.answered).toBeGreaterThanOrEqual(0.97);
    expect(almanac.referenceHit).toBeGreaterThanOrEqual(0.88);
  });
});
