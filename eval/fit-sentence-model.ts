// npm run eval:fit -- <questions.json>... [--report <questions.json>...]
//
// Fits the answerer's sentence model (src/documents/answer/sentence-model.ts)
// to the candidate sentences of the first files' questions: a sentence is a
// positive when it holds the question's fact. The --report files are only
// measured, never fitted: where their fact sentence ranks among a question's
// candidates, by the hand-made score and by the fitted likelihood. All files
// must name the same corpora, which load once.
import { readFile } from "node:fs/promises";
import { candidateSentences } from "../src/documents/answer/answer-query.ts";
import { FEATURE_NAMES, featureVector, likelihoodOf, type SentenceModel } from "../src/documents/answer/sentence-model.ts";
import type { Sentence } from "../src/documents/answer/sentences.ts";
import { runCli } from "../cli/run-cli.ts";
import { withCorpora } from "./corpora.ts";
import { containsFact } from "./evaluate.ts";
import { parseQuestionSet, type QuestionSet } from "./questions.ts";

const USAGE = "usage:\n  npm run eval:fit -- eval/questions/real-tune.json eval/questions/dart-go.json --report eval/questions/dart-go-unseen.json";
/** Gradient descent on standardised features: enough steps for the loss to settle at these sizes. */
const STEPS = 4000;
const LEARNING_RATE = 0.5;
/** A little L2 shrinkage, so a feature few sentences have cannot take an extreme weight. */
const L2 = 0.01;

/** One question's candidate sentences, when one of them holds its fact (the others say nothing of where facts are). */
interface Labelled {
  sentences: Sentence[];
  labels: number[];
}

async function labelled(env: Env, set: QuestionSet): Promise<{ asked: number; groups: Labelled[] }> {
  const groups: Labelled[] = [];
  const withFact = set.questions.filter((question) => question.fact);
  for (const question of withFact) {
    const candidates = await candidateSentences(env.DB, { query: question.query });
    if (!candidates) continue;
    const labels = candidates.sentences.map((sentence) => (containsFact(sentence.text + (sentence.code ?? ""), question.fact as string) ? 1 : 0));
    if (labels.includes(1)) groups.push({ sentences: candidates.sentences, labels });
  }
  return { asked: withFact.length, groups };
}

/** Logistic regression by gradient descent, returned in the model's raw (unstandardised) coefficients. */
function fit(groups: readonly Labelled[]): SentenceModel {
  const rows = groups.flatMap((group) => group.sentences.map((sentence) => featureVector(sentence.features!)));
  const labels = groups.flatMap((group) => group.labels);
  const width = rows[0]?.length ?? 0;
  const mean = Array.from({ length: width }, (_, j) => rows.reduce((sum, row) => sum + row[j]!, 0) / rows.length);
  const spread = mean.map((m, j) => Math.sqrt(rows.reduce((sum, row) => sum + (row[j]! - m) ** 2, 0) / rows.length) || 1);
  const standard = rows.map((row) => row.map((value, j) => (value - mean[j]!) / spread[j]!));
  const weights = new Array<number>(width).fill(0);
  let bias = 0;
  for (let step = 0; step < STEPS; step += 1) {
    const gradient = new Array<number>(width).fill(0);
    let biasGradient = 0;
    standard.forEach((row, i) => {
      const z = bias + row.reduce((sum, value, j) => sum + value * weights[j]!, 0);
      const error = 1 / (1 + Math.exp(-z)) - labels[i]!;
      row.forEach((value, j) => (gradient[j]! += error * value));
      biasGradient += error;
    });
    weights.forEach((weight, j) => (weights[j] = weight - LEARNING_RATE * (gradient[j]! / rows.length + L2 * weight)));
    bias -= (LEARNING_RATE * biasGradient) / rows.length;
  }
  const raw = weights.map((weight, j) => weight / spread[j]!);
  const rounded = (value: number) => Math.round(value * 1000) / 1000;
  return {
    weights: Object.fromEntries(FEATURE_NAMES.map((name, j) => [name, rounded(raw[j]!)])) as SentenceModel["weights"],
    questionShareByChunkPrior: rounded(raw[width - 1]!),
    bias: rounded(bias - raw.reduce((sum, weight, j) => sum + weight * mean[j]!, 0)),
  };
}

/** Where each question's first fact sentence ranks under `rank`: mean reciprocal rank and the share in the top 3. */
function ranking(groups: readonly Labelled[], rank: (sentence: Sentence) => number): string {
  const places = groups.map((group) => {
    const order = group.sentences.map((sentence, i) => ({ value: rank(sentence), label: group.labels[i] })).sort((a, b) => b.value - a.value);
    return order.findIndex((entry) => entry.label === 1) + 1;
  });
  const mrr = places.reduce((sum, place) => sum + 1 / place, 0) / (places.length || 1);
  const top3 = places.filter((place) => place <= 3).length / (places.length || 1);
  return `MRR ${mrr.toFixed(3)}, top 3 ${top3.toFixed(2)}`;
}

async function main(argv: string[]): Promise<void> {
  const split = argv.indexOf("--report");
  const fitFiles = split < 0 ? argv : argv.slice(0, split);
  const reportFiles = split < 0 ? [] : argv.slice(split + 1);
  if (fitFiles.length === 0) throw new Error("give at least one question file to fit on");
  const sets = await Promise.all([...fitFiles, ...reportFiles].map(async (file) => ({ file, set: parseQuestionSet(await readFile(file, "utf8")) })));
  const corpora = JSON.stringify(sets[0]!.set.corpora);
  const other = sets.find(({ set }) => JSON.stringify(set.corpora) !== corpora);
  if (other) throw new Error(`${other.file} names other corpora than ${sets[0]!.file}; fit on files over the same corpora`);
  await withCorpora(sets[0]!.set.corpora, async (env) => {
    const measured = [];
    for (const { file, set } of sets) measured.push({ file, fitted: fitFiles.includes(file), ...(await labelled(env, set)) });
    const training = measured.filter((entry) => entry.fitted).flatMap((entry) => entry.groups);
    const model = fit(training);
    console.log(`fitted on ${training.length} questions, ${training.reduce((sum, group) => sum + group.sentences.length, 0)} sentences:`);
    console.log(JSON.stringify(model, null, 2));
    for (const entry of measured) {
      const role = entry.fitted ? "fitted" : "reported";
      console.log(
        `${entry.file} (${role}): ${entry.groups.length} of ${entry.asked} questions have the fact in a candidate sentence; ` +
          `score ${ranking(entry.groups, (s) => s.score)}; fitted ${ranking(entry.groups, (s) => likelihoodOf(s.features!, model))}`,
      );
    }
  });
}

runCli("eval:fit", USAGE, main);
