// npm run eval -- <questions.json> [--corpus DIR --base-uri URL …] [--no-answers] [--out FILE] [--misses] [--embeddings URL [--embeddings-model NAME]]
//
// Ingests the corpora (and, as npm start does, the default corpus) into a
// scratch local database with the real ingestion code, asks every question through the real tools and through a plain BM25
// baseline over the same chunks, and prints both side by side.
import { readFile, writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { DEFAULT_CORPUS } from "../src/documents/default-corpus.ts";
import { runCli } from "../cli/run-cli.ts";
import { withCorpora } from "./corpora.ts";
import { evaluate, groupedFigures, type EvaluationRun, type Figures } from "./evaluate.ts";
import { parseQuestionSet, type EvalCorpus } from "./questions.ts";
import { compareHybrid, hybridVars, percentile, type HybridComparison } from "./hybrid.ts";
import { cliSemanticSearch } from "../cli/embeddings-vars.ts";

const USAGE = `usage:
  npm run eval -- <questions.json> [--corpus DIR --base-uri URL ...] [--no-answers] [--out FILE] [--misses]
                  [--embeddings URL [--embeddings-model NAME]]

Without --corpus, the corpora the question file lists are ingested. --out writes every
question's outcome as JSON; --misses lists the questions Almanac ranks worse than the baseline.
--embeddings URL (an OpenAI-compatible API base, e.g. http://localhost:11434/v1) embeds every
chunk and compares lexical and hybrid retrieval side by side, per kind, with search latency;
the model is --embeddings-model or EMBEDDINGS_MODEL.`;

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      corpus: { type: "string", multiple: true, default: [] },
      "base-uri": { type: "string", multiple: true, default: [] },
      "no-answers": { type: "boolean", default: false },
      out: { type: "string" },
      misses: { type: "boolean", default: false },
      embeddings: { type: "string" },
      "embeddings-model": { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) return console.log(USAGE);
  const [file, ...extra] = positionals;
  if (!file || extra.length > 0) throw new Error("give exactly one question file");
  const set = parseQuestionSet(await readFile(file, "utf8"));
  if (values.corpus.length !== values["base-uri"].length) throw new Error("give one --base-uri after each --corpus");
  const corpora: EvalCorpus[] =
    values.corpus.length > 0 ? values.corpus.map((dir, index) => ({ dir, baseUri: values["base-uri"][index] ?? "" })) : set.corpora;
  if (corpora.length === 0) throw new Error("the question file lists no corpora; name them with --corpus DIR --base-uri URL");

  if (values.embeddings) {
    const vars = hybridVars(values.embeddings, values["embeddings-model"] ?? process.env.EMBEDDINGS_MODEL ?? "");
    const embeddings = (env: Env) => {
      const semantic = cliSemanticSearch({ ...vars, EMBEDDINGS_API_KEY: process.env.EMBEDDINGS_API_KEY });
      if (!semantic) throw new Error("--embeddings needs a URL");
      return semantic;
    };
    const comparison = await withCorpora(corpora, (env) => compareHybrid(env, set.questions, vars, { answers: !values["no-answers"] }), embeddings);
    printHybrid(file, corpora, vars.EMBEDDINGS_MODEL, comparison);
    if (values.out) await writeFile(values.out, `${JSON.stringify(comparison, null, 2)}\n`);
    return;
  }
  const run = await withCorpora(corpora, (env) => evaluate(env, set.questions, { answers: !values["no-answers"] }));
  printReport(file, corpora, run);
  printCrowding(corpora, run);
  if (values.misses) printMisses(run);
  if (values.out) await writeFile(values.out, `${JSON.stringify(run, null, 2)}\n`);
}

const fixed = (value: number | undefined) => (value === undefined ? "—" : value.toFixed(3));

/** How a group's figures are written in a report's cells (a group's size decides which apply). */
function cellsOf(figures: Figures) {
  return {
    // Unanswerable questions have no right page to rank: only `declined` says anything about them.
    rank: (value: number) => (figures.questions === 0 ? "—" : fixed(value)),
    facts: (value: number | undefined) => (figures.factQuestions > 0 ? `${fixed(value)} (${figures.factQuestions})` : "—"),
    // Counts, not shares: "3 of 80" reads against the "at most 1 in 20".
    count: (value: number | undefined) => (figures.questions === 0 || value === undefined ? "—" : `${value} of ${figures.questions}`),
  };
}

function printReport(file: string, corpora: readonly EvalCorpus[], run: EvaluationRun): void {
  console.log(`eval: ${file} over ${corpora.map((corpus) => corpus.baseUri).join(", ")}`);
  console.log("");
  console.log(
    "| questions | n | BM25 R@5 | Almanac R@5 | BM25 R@10 | Almanac R@10 | BM25 MRR@10 | Almanac MRR@10 | BM25 fact in top chunk | Almanac fact in top chunk | answered | refs hit | fact in answer | declined (unanswerable) | BM25 first from other site | Almanac first from other site | answers citing other site |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
  const plain = new Map(groupedFigures(run.baseline).map(({ group, figures }) => [group, figures]));
  for (const { group, figures } of groupedFigures(run.almanac)) {
    const base = plain.get(group) as Figures;
    const n = group === "unanswerable" ? run.almanac.filter((outcome) => outcome.kind === "unanswerable").length : figures.questions;
    const { rank, facts, count } = cellsOf(figures);
    console.log(
      `| ${group} | ${n} | ${rank(base.recallAt5)} | ${rank(figures.recallAt5)} | ${rank(base.recallAt10)} | ${rank(figures.recallAt10)} | ${rank(base.mrrAt10)} | ${rank(figures.mrrAt10)} | ${facts(base.factInTopChunk)} | ${facts(figures.factInTopChunk)} | ${fixed(figures.answered)} | ${fixed(figures.referenceHit)} | ${facts(figures.factRate)} | ${fixed(figures.declined)} | ${count(base.firstFromOtherSite)} | ${count(figures.firstFromOtherSite)} | ${count(figures.citesOtherSite)} |`,
    );
  }
}

/** Lexical and hybrid retrieval side by side, per kind of question, then the search latency of each. */
function printHybrid(file: string, corpora: readonly EvalCorpus[], model: string, comparison: HybridComparison): void {
  console.log(`eval: ${file} over ${corpora.map((corpus) => corpus.baseUri).join(", ")}, lexical vs hybrid (${model}, reciprocal rank fusion)`);
  console.log("");
  console.log(
    "| questions | n | lexical R@5 | hybrid R@5 | lexical R@10 | hybrid R@10 | lexical MRR@10 | hybrid MRR@10 | lexical answered | hybrid answered | lexical refs hit | hybrid refs hit | lexical fact in answer | hybrid fact in answer | lexical declined | hybrid declined | lexical answers citing other site | hybrid answers citing other site |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
  const lexical = new Map(groupedFigures(comparison.lexical.almanac).map(({ group, figures }) => [group, figures]));
  for (const { group, figures } of groupedFigures(comparison.hybrid.almanac)) {
    const base = lexical.get(group) as Figures;
    const n = group === "unanswerable" ? comparison.hybrid.almanac.filter((outcome) => outcome.kind === "unanswerable").length : figures.questions;
    const { rank, facts, count } = cellsOf(figures);
    console.log(
      `| ${group} | ${n} | ${rank(base.recallAt5)} | ${rank(figures.recallAt5)} | ${rank(base.recallAt10)} | ${rank(figures.recallAt10)} | ${rank(base.mrrAt10)} | ${rank(figures.mrrAt10)} | ${fixed(base.answered)} | ${fixed(figures.answered)} | ${fixed(base.referenceHit)} | ${fixed(figures.referenceHit)} | ${facts(base.factRate)} | ${facts(figures.factRate)} | ${fixed(base.declined)} | ${fixed(figures.declined)} | ${count(base.citesOtherSite)} | ${count(figures.citesOtherSite)} |`,
    );
  }
  const { latency } = comparison;
  console.log("");
  console.log("| search_documents latency (ms) | median | p95 |");
  console.log("|---|---|---|");
  console.log(`| lexical | ${percentile(latency.lexical, 0.5).toFixed(1)} | ${percentile(latency.lexical, 0.95).toFixed(1)} |`);
  console.log(`| hybrid (query embedding, D1 vector scan, fusion) | ${percentile(latency.hybrid, 0.5).toFixed(1)} | ${percentile(latency.hybrid, 0.95).toFixed(1)} |`);
}

/** How often Almanac's own pages reach the top 3 of questions about the user's documentation. */
function printCrowding(corpora: readonly EvalCorpus[], run: EvaluationRun): void {
  if (corpora.some((corpus) => corpus.baseUri === DEFAULT_CORPUS.baseUri)) return;
  const prefix = `documents/${DEFAULT_CORPUS.baseUri.replace(/^https?:\/\//, "")}`;
  const crowded = (outcomes: EvaluationRun["almanac"]) => outcomes.filter((outcome) => outcome.ranked.slice(0, 3).some((name) => name.startsWith(prefix))).length;
  console.log("");
  console.log(`default corpus in the top 3: BM25 ${crowded(run.baseline)} of ${run.baseline.length} questions, Almanac ${crowded(run.almanac)} of ${run.almanac.length}`);
}

/** Questions where Almanac's first right page comes later than the baseline's, or where the answer misses. */
function printMisses(run: EvaluationRun): void {
  console.log("");
  run.almanac.forEach((outcome, index) => {
    const base = run.baseline[index];
    const rank = (place: number) => (place === 0 ? "miss" : String(place));
    const worse = outcome.kind !== "unanswerable" && (outcome.firstRelevant === 0 || (base && base.firstRelevant > 0 && outcome.firstRelevant > base.firstRelevant));
    const answerMiss =
      outcome.answer && outcome.kind !== "unanswerable" && (!outcome.answer.referenceHit || outcome.answer.factFound === false || outcome.answer.citesOtherSite);
    const wrongAnswer = outcome.answer && outcome.kind === "unanswerable" && outcome.answer.answered;
    if (!worse && !answerMiss && !wrongAnswer) return;
    console.log(`- ${outcome.id} [${outcome.kind}] almanac ${rank(outcome.firstRelevant)} / bm25 ${rank(base?.firstRelevant ?? 0)}: ${outcome.query}`);
    console.log(`    top: ${[...new Set(outcome.ranked)].slice(0, 3).join(", ")}`);
    if (outcome.answer) {
      const flag = [
        !outcome.answer.answered && "declined",
        outcome.answer.answered && !outcome.answer.referenceHit && "wrong refs",
        outcome.answer.factFound === false && "no fact",
        outcome.answer.answered && outcome.answer.citesOtherSite && "cites other site",
      ]
        .filter(Boolean)
        .join(", ");
      if (flag) console.log(`    answer: ${flag}: ${outcome.answer.text.slice(0, 160).replace(/\s+/g, " ")}`);
    }
  });
}

runCli("eval", USAGE, main);
