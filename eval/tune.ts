// npm run eval:tune -- <questions.json> '<JSON list of RANKING overrides>'
//
// Ingests the question file's corpora once, then scores each variant of the
// ranking weights (src/documents/rank.ts RANKING) on search alone, so a
// weight is chosen by measurement. Not part of the product: it changes
// RANKING (and, with TUNE_ANSWERS=1, ANSWERING) in this process only.
import { readFile } from "node:fs/promises";
import { ANSWERING } from "../src/documents/answer.ts";
import { RANKING } from "../src/documents/rank.ts";
import { runCli } from "../cli/run-cli.ts";
import { withCorpora } from "./corpora.ts";
import { evaluate, groupedFigures } from "./evaluate.ts";
import { parseQuestionSet } from "./questions.ts";

const USAGE = `usage:
  npm run eval:tune -- <questions.json> '[{"page": 0.4}, {"coverage": 2}]'`;

async function main(argv: string[]): Promise<void> {
  const [file, variantsJson = "[{}]"] = argv;
  if (!file) throw new Error("give a question file");
  const set = parseQuestionSet(await readFile(file, "utf8"));
  const variants = JSON.parse(variantsJson) as Record<string, unknown>[];
  const defaults = { ranking: structuredClone(RANKING), answering: structuredClone(ANSWERING) };
  const answers = process.env.TUNE_ANSWERS === "1";
  await withCorpora(set.corpora, async (env) => {
    for (const variant of variants) {
      Object.assign(RANKING, defaults.ranking);
      Object.assign(ANSWERING, defaults.answering);
      for (const [key, value] of Object.entries(variant)) Object.assign(key in ANSWERING ? ANSWERING : RANKING, { [key]: value });
      const run = await evaluate(env, set.questions, { answers });
      const figures = new Map(groupedFigures(run.almanac).map(({ group, figures: f }) => [group, f]));
      const show = (group: string) => {
        const f = figures.get(group);
        const answer =
          f?.answered === undefined
            ? ""
            : ` ans ${f.answered.toFixed(3)} refs ${f.referenceHit?.toFixed(3)} fact ${f.factRate?.toFixed(3)} other-site answers ${f.citesOtherSite}`;
        return f ? `${group} R@5 ${f.recallAt5.toFixed(3)} MRR ${f.mrrAt10.toFixed(3)} other-site first ${f.firstFromOtherSite}${answer}` : "";
      };
      console.log(`${JSON.stringify(variant)}: ${show("all")} | ${show("hard kinds")} | ${show("paraphrase")} | ${show("real-user")}`);
    }
  });
}

runCli("eval:tune", USAGE, main);
