// npm run eval:tune -- <questions.json> '<JSON list of weight overrides>'
//
// Ingests the question file's corpora once, then scores each variant of the
// weights on search alone (with TUNE_ANSWERS=1, answers too), so a weight is
// chosen by measurement. A variant names keys of DEFAULT_RANKING
// (src/documents/search/ranking-weights.ts) or DEFAULT_ANSWERING
// (src/documents/answer/answer-query.ts); it is passed to the tools as a
// parameter, so every key changes what is measured, column weights included.
import { readFile } from "node:fs/promises";
import { DEFAULT_ANSWERING, type AnswerWeights, type AnsweringWeights } from "../src/documents/answer/answer-query.ts";
import { DEFAULT_RANKING, type RankingWeights } from "../src/documents/search/ranking-weights.ts";
import { runCli } from "../cli/run-cli.ts";
import { withCorpora } from "./corpora.ts";
import { evaluate, groupedFigures } from "./evaluate.ts";
import { parseQuestionSet } from "./questions.ts";

const USAGE = `usage:
  npm run eval:tune -- <questions.json> '[{"page": 0.4}, {"coverage": 2}, {"columnWeights": [1, 3, 1]}]'`;

/**
 * The weights one variant asks for: the defaults with its keys replaced. A
 * key neither weight set has, or a value of another type than the
 * default's, is refused, so no variant silently measures the defaults.
 */
function variantWeights(variant: Record<string, unknown>): AnswerWeights {
  const ranking: Record<string, unknown> = { ...DEFAULT_RANKING };
  const answering: Record<string, unknown> = { ...DEFAULT_ANSWERING };
  for (const [key, value] of Object.entries(variant)) {
    const target = key in DEFAULT_RANKING ? ranking : key in DEFAULT_ANSWERING ? answering : null;
    if (!target) throw new Error(`unknown weight "${key}"; use one of ${[...Object.keys(DEFAULT_RANKING), ...Object.keys(DEFAULT_ANSWERING)].join(", ")}`);
    const wanted = target[key];
    const fits = Array.isArray(wanted)
      ? Array.isArray(value) && value.length === wanted.length && value.every((item) => typeof item === "number" && Number.isFinite(item))
      : typeof value === typeof wanted && (typeof value !== "number" || Number.isFinite(value));
    if (!fits) throw new Error(`weight "${key}" must look like its default ${JSON.stringify(wanted)}, not ${JSON.stringify(value)}`);
    target[key] = value;
  }
  return { ranking: ranking as unknown as RankingWeights, answering: answering as unknown as AnsweringWeights };
}

async function main(argv: string[]): Promise<void> {
  const [file, variantsJson = "[{}]"] = argv;
  if (!file) throw new Error("give a question file");
  const set = parseQuestionSet(await readFile(file, "utf8"));
  const variants = JSON.parse(variantsJson) as Record<string, unknown>[];
  // Checked before the corpora load, so a typo fails at once.
  const weighted = variants.map((variant) => ({ variant, weights: variantWeights(variant) }));
  const answers = process.env.TUNE_ANSWERS === "1";
  await withCorpora(set.corpora, async (env) => {
    for (const { variant, weights } of weighted) {
      const run = await evaluate(env, set.questions, { answers, weights });
      const figures = new Map(groupedFigures(run.almanac).map(({ group, figures: f }) => [group, f]));
      const show = (group: string) => {
        const f = figures.get(group);
        const answer = f?.answered === undefined ? "" : ` ans ${f.answered.toFixed(3)} refs ${f.referenceHit?.toFixed(3)} fact ${f.factRate?.toFixed(3)}`;
        return f ? `${group} R@5 ${f.recallAt5.toFixed(3)} MRR ${f.mrrAt10.toFixed(3)}${answer}` : "";
      };
      console.log(`${JSON.stringify(variant)}: ${show("all")} | ${show("keyword-aligned")} | ${show("hard kinds")} | ${show("paraphrase")}`);
    }
  });
}

runCli("eval:tune", USAGE, main);
