// The fixed query mix: what developers send a documentation server, in the
// kinds whose cost differs. The same strings at every corpus size, so growth
// from 10k to 100k chunks compares like with like.
import { readFile } from "node:fs/promises";
import { seededRandom, vocabulary } from "./synthetic-corpus.ts";

/**
 * typical: keywords, identifiers, a question in a sentence or three.
 * common: only words that are in most sections ("how do I use the function with a type value").
 * long: 500 characters of question, the most search_documents accepts.
 */
export type QueryKind = "keyword" | "identifier" | "question" | "common" | "long";

export interface BenchQuery {
  kind: QueryKind;
  query: string;
}

/** Kinds whose p50 is "typical" in the targets; the others are the pathological ones. */
export const TYPICAL_KINDS: readonly QueryKind[] = ["keyword", "identifier", "question"];

/** The longest query the tools accept (SPEC 2.1). */
const MAX_QUERY_CHARS = 500;

function longQuestion(sentences: readonly string[]): string {
  let text = "";
  for (const sentence of sentences) {
    if (text.length + sentence.length + 1 > MAX_QUERY_CHARS) break;
    text = text ? `${text} ${sentence}` : sentence;
  }
  return text;
}

/** The mix for the synthetic corpora, drawn from their vocabulary (bench/synthetic-corpus.ts). */
export function syntheticQueries(): BenchQuery[] {
  const random = seededRandom(99);
  const { words, verbs, identifiers } = vocabulary();
  const pick = <T>(items: readonly T[], from = 0, to = items.length) => items[from + Math.floor(random() * (to - from))] as T;
  // Topic words sit in the middle ranks (as the pages' topics do); common words are the first ranks.
  const topical = () => pick(words, 40);
  const common = () => pick(words, 0, 12);
  const queries: BenchQuery[] = [];
  for (let i = 0; i < 4; i += 1) queries.push({ kind: "keyword", query: `${topical()} ${topical()}` });
  for (let i = 0; i < 3; i += 1) queries.push({ kind: "identifier", query: i === 2 ? `${pick(identifiers, 0, 50)} ${topical()}` : pick(identifiers, 0, 200) });
  for (let i = 0; i < 4; i += 1) {
    queries.push({ kind: "question", query: `How do I ${pick(verbs)} the ${topical()} ${topical()} when the ${topical()} fails with a ${topical()} error?` });
  }
  queries.push({ kind: "common", query: `how do I use the ${common()} with a ${common()} and the ${common()} ${common()} of a ${common()}` });
  queries.push({ kind: "common", query: `what is the ${common()} ${common()} for the ${common()} in the ${common()}` });
  const sentences = Array.from({ length: 12 }, () => `I ${pick(verbs)} the ${topical()} ${common()} but the ${topical()} ${common()} still returns a ${topical()} ${common()}, so how should I ${pick(verbs)} it?`);
  queries.push({ kind: "long", query: longQuestion(sentences) });
  return queries;
}

/** The mix for dart.dev + go.dev: questions from the evaluation set, plus the two pathological kinds. */
export async function realQueries(questionFile: string): Promise<BenchQuery[]> {
  const { questions } = JSON.parse(await readFile(questionFile, "utf8")) as { questions: { kind: string; query: string }[] };
  const of = (kind: string, count: number) => questions.filter((question) => question.kind === kind).slice(0, count);
  return [
    ...of("keyword", 4).map(({ query }) => ({ kind: "keyword" as const, query })),
    ...of("error", 3).map(({ query }) => ({ kind: "identifier" as const, query })),
    ...of("paraphrase", 4).map(({ query }) => ({ kind: "question" as const, query })),
    { kind: "common", query: "how do I use a type with a value and the function of a package in the file" },
    { kind: "common", query: "what is the default value of a variable in a function" },
    { kind: "long", query: longQuestion(of("long", 4).map(({ query }) => query)) },
  ];
}
