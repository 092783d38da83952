// Runs a question set through the real tools and the plain baseline, and scores both.
import { NO_GROUNDED_ANSWER, type AnswerWeights } from "../src/documents/answer/answer-query.ts";
import { ReadConsistency } from "../src/d1/sessions.ts";
import { answerQueryTool } from "../src/tools/answer-query.ts";
import { searchDocumentsTool } from "../src/tools/search-documents.ts";
import { baselineSearch, buildBaselineIndex } from "./baseline.ts";
import type { Question, QuestionKind } from "./questions.ts";

/** How deep the document-level measures look: recall@5, recall@10 and MRR@10. */
const DEPTH = 10;

/** What one system did with one question. */
export interface QuestionOutcome {
  id: string;
  kind: QuestionKind;
  query: string;
  /** Parents of the top chunks, best first (repeats kept: rank is the chunk's place). */
  ranked: string[];
  /** 1-based place of the first chunk from a relevant page within DEPTH; 0 when none. */
  firstRelevant: number;
  answer?: {
    answered: boolean;
    referenceHit: boolean;
    factFound: boolean | null;
    /** A reference is a page of a site the question is not about (see askedSites). */
    citesOtherSite: boolean;
    text: string;
    references: string[];
  };
  /** Whether the fact is in the top search result's chunk. */
  factInTopChunk?: boolean | null;
  /** The first result is a page of a site the question is not about. */
  firstFromOtherSite?: boolean;
}

/** The site of a document name: "documents/dart.dev/language/async" → "dart.dev". */
export function siteOf(name: string): string {
  return name.split("/")[1] ?? "";
}

/** The sites a question is about: those of its right pages (a question both sites answer is about both). */
export function askedSites(question: Pick<Question, "relevant">): Set<string> {
  return new Set(question.relevant.map(siteOf));
}

/** Both systems' outcomes for every question of a set. */
export interface EvaluationRun {
  almanac: QuestionOutcome[];
  baseline: QuestionOutcome[];
}

/**
 * Asks every question of `questions` through the real search_documents and
 * answer_query tools, and through the plain BM25 baseline over the same
 * chunks (built in the same database). `env` must hold the ingested corpus;
 * `weights` (eval:tune's variants) replace the product's defaults.
 */
export async function evaluate(env: Env, questions: readonly Question[], options: { answers?: boolean; weights?: AnswerWeights } = {}): Promise<EvaluationRun> {
  await buildBaselineIndex(env.DB);
  // Each call reads on its own, as it would without a context; the weights ride along.
  const context = () => ({ reads: new ReadConsistency(), ...(options.weights ? { weights: options.weights } : {}) });
  const almanac: QuestionOutcome[] = [];
  const baseline: QuestionOutcome[] = [];
  for (const question of questions) {
    const search = await searchDocumentsTool.run(env, { query: question.query, pageSize: DEPTH }, context());
    const ranked = search.structured.results.map((hit) => hit.parent);
    const sites = askedSites(question);
    const otherSite = (name: string) => !sites.has(siteOf(name));
    const outcome: QuestionOutcome = {
      id: question.id,
      kind: question.kind,
      query: question.query,
      ranked,
      firstRelevant: firstRelevant(ranked, question),
      factInTopChunk: question.fact ? containsFact(search.structured.results[0]?.content ?? "", question.fact) : null,
      firstFromOtherSite: ranked[0] !== undefined && otherSite(ranked[0]),
    };
    if (options.answers !== false) {
      const { structured } = await answerQueryTool.run(env, { query: question.query }, context());
      outcome.answer = {
        answered: structured.answerText !== NO_GROUNDED_ANSWER,
        referenceHit: structured.references.some((name) => question.relevant.includes(name)),
        factFound: question.fact ? containsFact(structured.answerText, question.fact) : null,
        citesOtherSite: structured.references.some(otherSite),
        text: structured.answerText,
        references: structured.references,
      };
    }
    almanac.push(outcome);

    const plain = await baselineSearch(env.DB, question.query, DEPTH);
    const plainRanked = plain.map((hit) => hit.parent);
    baseline.push({
      id: question.id,
      kind: question.kind,
      query: question.query,
      ranked: plainRanked,
      firstRelevant: firstRelevant(plainRanked, question),
      factInTopChunk: question.fact ? containsFact(plain[0]?.content ?? "", question.fact) : null,
      firstFromOtherSite: plainRanked[0] !== undefined && otherSite(plainRanked[0]),
    });
  }
  return { almanac, baseline };
}

function firstRelevant(ranked: readonly string[], question: Question): number {
  const index = ranked.slice(0, DEPTH).findIndex((name) => question.relevant.includes(name));
  return index + 1;
}

/** Text compared as a reader sees it: case, Markdown emphasis and code marks, and spacing do not matter. */
function normalise(text: string): string {
  return text
    .toLowerCase()
    .replace(/[`*_]/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

/** Whether `text` holds the question's fact, as the harness checks answers. */
export function containsFact(text: string, fact: string): boolean {
  return normalise(text).includes(normalise(fact));
}

/** The figures of one group of questions, for one system. */
export interface Figures {
  questions: number;
  recallAt5: number;
  recallAt10: number;
  mrrAt10: number;
  /** Share of fact questions whose fact is in the top chunk (the measure both systems have). */
  factInTopChunk?: number;
  /** answer_query (Almanac only): share answered, share whose references include a right page, share with the fact. */
  answered?: number;
  referenceHit?: number;
  factRate?: number;
  factQuestions: number;
  /** Unanswerable questions: share declined ("No grounded answer"). */
  declined?: number;
  /** Answerable questions whose first result is a page of a site the question is not about. */
  firstFromOtherSite: number;
  /** Answered questions whose references include a page of a site the question is not about (Almanac only). */
  citesOtherSite?: number;
}

/** Scores outcomes; unanswerable questions count only towards `declined`. */
export function figuresOf(outcomes: readonly QuestionOutcome[]): Figures {
  const answerable = outcomes.filter((outcome) => outcome.kind !== "unanswerable");
  const unanswerable = outcomes.filter((outcome) => outcome.kind === "unanswerable");
  const share = (list: readonly QuestionOutcome[], test: (outcome: QuestionOutcome) => boolean) =>
    list.length === 0 ? 0 : list.filter(test).length / list.length;
  const withFact = answerable.filter((outcome) => outcome.factInTopChunk !== null && outcome.factInTopChunk !== undefined);
  const answered = answerable.filter((outcome) => outcome.answer);
  const figures: Figures = {
    questions: answerable.length,
    recallAt5: share(answerable, (outcome) => outcome.firstRelevant >= 1 && outcome.firstRelevant <= 5),
    recallAt10: share(answerable, (outcome) => outcome.firstRelevant >= 1),
    mrrAt10: answerable.length === 0 ? 0 : answerable.reduce((sum, outcome) => sum + (outcome.firstRelevant ? 1 / outcome.firstRelevant : 0), 0) / answerable.length,
    factQuestions: withFact.length,
    factInTopChunk: share(withFact, (outcome) => outcome.factInTopChunk === true),
    firstFromOtherSite: answerable.filter((outcome) => outcome.firstFromOtherSite === true).length,
  };
  if (answered.length > 0) {
    figures.factRate = share(withFact, (outcome) => outcome.answer?.factFound === true);
    figures.answered = share(answered, (outcome) => outcome.answer?.answered === true);
    figures.referenceHit = share(answered, (outcome) => outcome.answer?.referenceHit === true);
    figures.citesOtherSite = answered.filter((outcome) => outcome.answer?.answered === true && outcome.answer.citesOtherSite).length;
  }
  const declinable = unanswerable.filter((outcome) => outcome.answer);
  if (declinable.length > 0) figures.declined = share(declinable, (outcome) => outcome.answer?.answered === false);
  return figures;
}

/** Figures grouped the way the report prints them: all, keyword-aligned, the hard kinds, then each kind. */
export function groupedFigures(outcomes: readonly QuestionOutcome[]): { group: string; figures: Figures }[] {
  const groups: { group: string; outcomes: readonly QuestionOutcome[] }[] = [
    { group: "all", outcomes },
    { group: "keyword-aligned", outcomes: outcomes.filter((outcome) => outcome.kind === "keyword") },
    { group: "hard kinds", outcomes: outcomes.filter((outcome) => outcome.kind !== "keyword") },
    ...[...new Set(outcomes.map((outcome) => outcome.kind))].map((kind) => ({ group: kind, outcomes: outcomes.filter((outcome) => outcome.kind === kind) })),
  ];
  return groups.map(({ group, outcomes: list }) => ({ group, figures: figuresOf(list) }));
}
