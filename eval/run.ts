// npm run eval -- <questions.json>… [--half tune|holdout] [--pages] [--cache] [--state DIR] [--corpus DIR --base-uri URL …]
//                 [--no-answers] [--out FILE] [--misses] [--embeddings URL [--embeddings-model NAME]]
//
// Reads each file's corpora (folders, sites, Debian packages' sites served on 127.0.0.1, archives,
// llms.txt files; and, as npm start does, the default corpus) into a scratch local database with the
// real readers, asks every question through the real tools and through a plain BM25 baseline over
// the same chunks, and prints both side by side; with several files, a table per file and in aggregate.
import { readFile, writeFile } from "node:fs/promises";
import { basename } from "node:path";
import { parseArgs } from "node:util";
import { DEFAULT_CORPUS } from "../src/documents/default-corpus.ts";
import { runCli } from "../cli/run-cli.ts";
import { withCorpora } from "./corpora.ts";
import { evaluate, figuresOf, groupedFigures, samePageKey, type EvaluationRun, type Figures, type QuestionOutcome } from "./evaluate.ts";
import { pageQuality, TEMPLATE_SHARE, type PageQuality } from "./page-quality.ts";
import { HALVES, parseQuestionSet, type EvalCorpus, type Half, type QuestionSet } from "./questions.ts";
import { compareHybrid, hybridVars, percentile, type HybridComparison } from "./hybrid.ts";
import { cliSemanticSearch } from "../cli/embeddings-vars.ts";

const USAGE = `usage:
  npm run eval -- <questions.json>… [--half tune|holdout] [--pages] [--cache] [--no-answers] [--out FILE] [--misses]
  npm run eval -- <questions.json> --state <dir>          measure an existing local database as it is
  npm run eval -- <questions.json> --corpus DIR --base-uri URL …
  npm run eval -- <questions.json> --embeddings URL [--embeddings-model NAME]

Without --corpus or --state, the corpora each file lists are read: folders, sites (crawled),
Debian packages' sites (served on 127.0.0.1 and crawled), archives and llms.txt files.
Several files (the site benchmark: eval/sites/*.json) give a table per file and in aggregate.
--half: files whose questions are split measure the tuning half unless told otherwise; the
held-out half prints aggregate figures only. --pages adds the page-quality report of each site.
--cache keeps crawled corpora in eval/.cache/state and reuses them while the reading code is
unchanged. --state measures a copy of a local state folder (e.g. .wrangler/state) instead of
reading anything. --out writes every question's outcome as JSON; --misses lists the questions
Almanac ranks worse than the baseline or answers wrong. --embeddings URL (an OpenAI-compatible
API base) embeds every chunk and compares lexical and hybrid retrieval side by side.`;

/** One question file as measured. */
interface FileRun {
  label: string;
  description?: string;
  run: EvaluationRun;
  pages?: PageQuality;
  seconds: number;
}

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      corpus: { type: "string", multiple: true, default: [] },
      "base-uri": { type: "string", multiple: true, default: [] },
      state: { type: "string" },
      half: { type: "string" },
      pages: { type: "boolean", default: false },
      cache: { type: "boolean", default: false },
      "no-answers": { type: "boolean", default: false },
      out: { type: "string" },
      misses: { type: "boolean", default: false },
      embeddings: { type: "string" },
      "embeddings-model": { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) return console.log(USAGE);
  if (positionals.length === 0) throw new Error("give a question file, e.g. npm run eval -- eval/sites/sqlite.json");
  if (values.half !== undefined && !(HALVES as readonly string[]).includes(values.half)) throw new Error(`--half is tune or holdout, not "${values.half}"`);
  const half = values.half as Half | undefined;
  if (half === "holdout" && (values.misses || values.out)) throw new Error("the held-out half is read in aggregate only: --misses and --out are refused with --half holdout");
  if (values.corpus.length !== values["base-uri"].length) throw new Error("give one --base-uri after each --corpus");
  const overridden = values.corpus.length > 0 || values.state !== undefined;
  if (overridden && positionals.length > 1) throw new Error("--corpus and --state measure one question file; give one");

  const sets = await Promise.all(positionals.map(async (file) => ({ file, set: parseQuestionSet(await readFile(file, "utf8")) })));
  const corporaOf = (set: QuestionSet): EvalCorpus[] => {
    const named: EvalCorpus[] = values.corpus.map((dir, index) => ({ dir, baseUri: values["base-uri"][index] ?? "" }));
    const corpora = named.length > 0 ? named : set.corpora;
    if (corpora.length === 0 && !values.state) throw new Error("the question file lists no corpora; name them with --corpus DIR --base-uri URL, or measure a database with --state DIR");
    return corpora;
  };

  if (values.embeddings) {
    const [{ file, set }] = sets as [{ file: string; set: QuestionSet }];
    const vars = hybridVars(values.embeddings, values["embeddings-model"] ?? process.env.EMBEDDINGS_MODEL ?? "");
    const embeddings = () => {
      const semantic = cliSemanticSearch({ ...vars, EMBEDDINGS_API_KEY: process.env.EMBEDDINGS_API_KEY });
      if (!semantic) throw new Error("--embeddings needs a URL");
      return semantic;
    };
    const questions = questionsOf(set, half);
    const comparison = await withCorpora(corporaOf(set), (env) => compareHybrid(env, questions, vars, { answers: !values["no-answers"] }), { embeddings });
    printHybrid(file, corporaOf(set).map((corpus) => ("baseUri" in corpus ? (corpus.baseUri ?? "") : "")), vars.EMBEDDINGS_MODEL, comparison);
    if (values.out) await writeFile(values.out, `${JSON.stringify(comparison, null, 2)}\n`);
    return;
  }

  const runs: FileRun[] = [];
  for (const { file, set } of sets) {
    const started = performance.now();
    const questions = questionsOf(set, half);
    const measured = await withCorpora(
      corporaOf(set),
      async (env, context) => ({
        labels: context.labels,
        missing: await pagesNotHeld(env, questions),
        run: await evaluate(env, questions, { answers: !values["no-answers"] }),
        pages: values.pages ? await pageQuality(env, context) : undefined,
      }),
      { ...(values.state ? { state: values.state } : {}), cache: values.cache },
    );
    const fileRun: FileRun = { label: basename(file, ".json"), description: set.description, run: measured.run, pages: measured.pages, seconds: (performance.now() - started) / 1000 };
    runs.push(fileRun);
    console.error(`eval: ${file}: ${questions.length} questions${splitNote(set, half)} in ${fileRun.seconds.toFixed(0)} s`);
    // A right page the corpus does not hold is a question no system can get right: the file or the crawl is wrong.
    for (const { id, names } of measured.missing) console.error(`eval: ${file}: ${id} names pages the corpus does not hold: ${names.join(", ")}`);
    if (sets.length === 1) {
      console.log(`eval: ${file} over ${measured.labels.join(", ")}${splitNote(set, half)}`);
      console.log("");
      if (half === "holdout") printSites(runs);
      else printReport(measured.run);
      if (!(values.state || overridden)) printCrowding(corporaOf(set), measured.run);
      if (measured.pages) printPages(runs);
    }
  }
  if (sets.length > 1) {
    const split = sets.some(({ set }) => isSplit(set));
    console.log(`eval: ${sets.length} sites, ${split ? `${half ?? "tune"} half` : "every question"}, in ${runs.reduce((sum, run) => sum + run.seconds, 0).toFixed(0)} s`);
    console.log("");
    printSites(runs, { aggregateOnly: half === "holdout" });
    if (values.pages) printPages(runs);
  }
  const all: EvaluationRun = { almanac: runs.flatMap((run) => run.run.almanac), baseline: runs.flatMap((run) => run.run.baseline) };
  if (values.misses) printMisses(all);
  if (values.out) await writeFile(values.out, `${JSON.stringify(sets.length === 1 ? all : runs, null, 2)}\n`);
}

/** Per question, the right pages it names that the database does not hold. */
async function pagesNotHeld(env: Env, questions: QuestionSet["questions"]): Promise<{ id: string; names: string[] }[]> {
  const { results } = await env.DB.prepare("SELECT name FROM documents").all<{ name: string }>();
  const held = new Set(results.map((row) => samePageKey(row.name)));
  return questions
    .map((question) => ({ id: question.id, names: question.relevant.filter((name) => !held.has(samePageKey(name))) }))
    .filter((question) => question.names.length > 0);
}

/** Whether the file's questions are split into a tuning and a held-out half. */
function isSplit(set: QuestionSet): boolean {
  return set.questions.some((question) => question.half !== undefined);
}

/** The questions of the half asked for; a split file without --half measures its tuning half. */
function questionsOf(set: QuestionSet, half: Half | undefined): QuestionSet["questions"] {
  if (!isSplit(set)) return set.questions;
  const chosen = half ?? "tune";
  return set.questions.filter((question) => question.half === chosen);
}

function splitNote(set: QuestionSet, half: Half | undefined): string {
  return isSplit(set) ? ` (${half ?? "tune"} half)` : "";
}

const fixed = (value: number | undefined) => (value === undefined ? "—" : value.toFixed(3));

/** How a group's figures are written in a report's cells (a group's size decides which apply). */
function cellsOf(figures: Figures) {
  return {
    // Unanswerable questions have no right page to rank: only `declined` says anything about them.
    rank: (value: number) => (figures.questions === 0 ? "—" : fixed(value)),
    facts: (value: number | undefined) => (figures.factQuestions > 0 ? `${fixed(value)} (${figures.factQuestions})` : "—"),
    // Counts, not shares: "3 of 80" reads against the issue's "at most 1 in 20".
    count: (value: number | undefined) => (figures.questions === 0 || value === undefined ? "—" : `${value} of ${figures.questions}`),
    lead: (value: number | undefined) => (figures.topRightQuestions > 0 ? `${fixed(value)} (${figures.topRightQuestions})` : "—"),
    chars: (value: number | undefined) => (value === undefined ? "—" : String(Math.round(value))),
  };
}

function printReport(run: EvaluationRun): void {
  console.log(
    "| questions | n | BM25 R@5 | Almanac R@5 | BM25 R@10 | Almanac R@10 | BM25 MRR@10 | Almanac MRR@10 | BM25 fact in top chunk | Almanac fact in top chunk | answered | refs hit | lead from a right page | lead right when top result right | fact in answer | median answer chars | declined (unanswerable) | BM25 first from other site | Almanac first from other site | answers citing other site |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
  const plain = new Map(groupedFigures(run.baseline).map(({ group, figures }) => [group, figures]));
  for (const { group, figures } of groupedFigures(run.almanac)) {
    const base = plain.get(group) as Figures;
    const n = group === "unanswerable" ? run.almanac.filter((outcome) => outcome.kind === "unanswerable").length : figures.questions;
    const { rank, facts, count, lead, chars } = cellsOf(figures);
    console.log(
      `| ${group} | ${n} | ${rank(base.recallAt5)} | ${rank(figures.recallAt5)} | ${rank(base.recallAt10)} | ${rank(figures.recallAt10)} | ${rank(base.mrrAt10)} | ${rank(figures.mrrAt10)} | ${facts(base.factInTopChunk)} | ${facts(figures.factInTopChunk)} | ${fixed(figures.answered)} | ${fixed(figures.referenceHit)} | ${fixed(figures.leadHit)} | ${lead(figures.leadHitWhenTopRight)} | ${facts(figures.factRate)} | ${chars(figures.medianLength)} | ${fixed(figures.declined)} | ${count(base.firstFromOtherSite)} | ${count(figures.firstFromOtherSite)} | ${count(figures.citesOtherSite)} |`,
    );
  }
}

/** The site benchmark's table: a row per file and one for all their questions together; the held-out half (`aggregateOnly`) gets the last alone. */
function printSites(runs: readonly FileRun[], { aggregateOnly = false } = {}): void {
  console.log(
    "| site | n | BM25 R@5 | Almanac R@5 | BM25 MRR@10 | Almanac MRR@10 | refs hit | lead from a right page | lead right when top result right | fact in answer | median answer chars | answers repeating a sentence | answerable declined | unanswerable declined |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
  const row = (label: string, almanac: readonly QuestionOutcome[], baseline: readonly QuestionOutcome[]) => {
    const figures = figuresOf(almanac);
    const base = figuresOf(baseline);
    const unanswerable = almanac.filter((outcome) => outcome.kind === "unanswerable");
    const { rank, facts, lead, chars } = cellsOf(figures);
    const declinedUnanswerable = unanswerable.filter((outcome) => outcome.answer && !outcome.answer.answered).length;
    console.log(
      `| ${label} | ${figures.questions} + ${unanswerable.length} | ${rank(base.recallAt5)} | ${rank(figures.recallAt5)} | ${rank(base.mrrAt10)} | ${rank(figures.mrrAt10)} | ${fixed(figures.referenceHit)} | ${fixed(figures.leadHit)} | ${lead(figures.leadHitWhenTopRight)} | ${facts(figures.factRate)} | ${chars(figures.medianLength)} | ${figures.repeating ?? "—"} | ${figures.declinedAnswerable ?? "—"} of ${figures.questions} | ${declinedUnanswerable} of ${unanswerable.length} |`,
    );
  };
  if (!aggregateOnly || runs.length === 1) for (const run of runs) row(run.label, run.run.almanac, run.run.baseline);
  if (runs.length > 1) row("**all**", runs.flatMap((run) => run.run.almanac), runs.flatMap((run) => run.run.baseline));
  console.log("");
  console.log("n: answerable + unanswerable questions. Rank, lead and fact figures are over the answerable ones.");
}

/** The page-quality table: how each site's stored pages read against its live HTML. */
function printPages(runs: readonly FileRun[]): void {
  console.log("");
  console.log("| site | pages | chunks | chunk anchors on the live page | template-only chunks | pages with template text | pages with []() | chunks with []() | pages stored twice | content rule (pages) |");
  console.log("|---|---|---|---|---|---|---|---|---|---|");
  const share = (part: number, whole: number) => (whole === 0 ? "—" : `${((100 * part) / whole).toFixed(1)} % (${part} of ${whole})`);
  for (const { label, pages } of runs) {
    if (!pages) continue;
    const rules = Object.entries(pages.contentRules)
      .sort(([, a], [, b]) => b - a)
      .map(([rule, count]) => `${rule} ${count}`)
      .join(", ");
    const unreadable = pages.anchors.unreadablePages > 0 ? `; ${pages.anchors.unreadablePages} pages not readable live` : "";
    console.log(
      `| ${label} | ${pages.pages} | ${pages.chunks} | ${share(pages.anchors.found, pages.anchors.linked)}${unreadable} | ${share(pages.templateOnlyChunks, pages.chunks)} | ${share(pages.pagesWithTemplateText, pages.pages)} | ${pages.emptyLinks.pages} | ${pages.emptyLinks.chunks} | ${pages.duplicatePages} | ${rules || "—"} |`,
    );
  }
  console.log("");
  console.log(`Template text: a line (link targets and marks aside) that at least ${TEMPLATE_SHARE * 100} % of the site's pages hold.`);
}

/** Lexical and hybrid retrieval side by side, per kind of question, then the search latency of each. */
function printHybrid(file: string, bases: readonly string[], model: string, comparison: HybridComparison): void {
  console.log(`eval: ${file} over ${bases.join(", ")}, lexical vs hybrid (${model}, reciprocal rank fusion)`);
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
  if (corpora.some((corpus) => "baseUri" in corpus && corpus.baseUri === DEFAULT_CORPUS.baseUri)) return;
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
      outcome.answer &&
      outcome.kind !== "unanswerable" &&
      (!outcome.answer.referenceHit || !outcome.answer.leadHit || outcome.answer.factFound === false || outcome.answer.citesOtherSite);
    const wrongAnswer = outcome.answer && outcome.kind === "unanswerable" && outcome.answer.answered;
    if (!worse && !answerMiss && !wrongAnswer) return;
    console.log(`- ${outcome.id} [${outcome.kind}] almanac ${rank(outcome.firstRelevant)} / bm25 ${rank(base?.firstRelevant ?? 0)}: ${outcome.query}`);
    console.log(`    top: ${[...new Set(outcome.ranked)].slice(0, 3).join(", ")}`);
    if (outcome.answer) {
      const flag = (outcome.kind === "unanswerable" ? ["answered, where it should decline"] : [
        !outcome.answer.answered && "declined",
        outcome.answer.answered && !outcome.answer.referenceHit && "wrong refs",
        outcome.answer.answered && !outcome.answer.leadHit && `lead from ${outcome.answer.lead}`,
        outcome.answer.factFound === false && "no fact",
        outcome.answer.answered && outcome.answer.citesOtherSite && "cites other site",
      ])
        .filter(Boolean)
        .join(", ");
      if (flag) console.log(`    answer (${outcome.answer.length} chars): ${flag}: ${outcome.answer.text.slice(0, 160).replace(/\s+/g, " ")}`);
    }
  });
}

runCli("eval", USAGE, main);
