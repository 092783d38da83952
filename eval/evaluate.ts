// Runs a question set through the real tools and the plain baseline, and scores both.
import type { Answer, AnswerWeights } from "../src/documents/answer/answer-query.ts";
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
    /** The page the answer's first sentence is cited from ("" when declined). */
    lead: string;
    leadHit: boolean;
    /** The answer's length in characters. */
    length: number;
    /** A sentence of the answer appears in it twice (case, spacing and punctuation aside). */
    repeats: boolean;
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
      const lead = leadPage(structured);
      outcome.answer = {
        // A decline cites nothing (it may name the closest pages in its text).
        answered: structured.references.length > 0,
        referenceHit: structured.references.some((name) => isRelevant(name, question)),
        lead,
        leadHit: isRelevant(lead, question),
        length: structured.answerText.length,
        repeats: repeatsASentence(structured.answerText),
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
  const index = ranked.slice(0, DEPTH).findIndex((name) => isRelevant(name, question));
  return index + 1;
}

/**
 * A page as a question file names it, whatever the reader makes of a
 * folder's index or an .html suffix: "…/guide/index.html", "…/guide/",
 * "…/guide.html" and "…/guide" are the same page.
 */
export function samePageKey(name: string): string {
  return name.replace(/\/index\.html?$/i, "").replace(/\.html?$/i, "").replace(/\/+$/, "");
}

function isRelevant(name: string, question: Pick<Question, "relevant">): boolean {
  const key = samePageKey(name);
  return name !== "" && question.relevant.some((relevant) => samePageKey(relevant) === key);
}

/** The page the answer's first cited span comes from; "" when nothing is cited. */
function leadPage(answer: Pick<Answer, "references" | "citations">): string {
  const first = [...answer.citations].sort((a, b) => a.startIndex - b.startIndex)[0];
  const index = first?.sources[0]?.referenceIndex;
  return index === undefined ? "" : (answer.references[index] ?? "");
}

/**
 * Whether a sentence of `text` (20 characters or more, code blocks aside: two
 * code samples may share a line) appears in it twice, case, spacing and
 * punctuation aside.
 */
export function repeatsASentence(text: string): boolean {
  const seen = new Set<string>();
  const prose = text.replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1\s*$/gm, "");
  for (const sentence of prose.split(/(?<=[.!?])\s+|\n+/)) {
    const key = sentence.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();
    if (key.length < 20) continue;
    if (seen.has(key)) return true;
    seen.add(key);
  }
  return false;
}

/** Text compared as a reader sees it: case, Markdown emphasis and code marks, and spacing do not matter. */
function normalise(text: string): string {
  return text
    .toLowerCase()
    .replace(/[`*_]/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * Whether `text` holds the question's fact, as the harness checks answers: as
 * whole words (the fact "ON CONFLICT" is not found in "ON CONFLICTS").
 */
export function containsFact(text: string, fact: string): boolean {
  const haystack = normalise(text);
  const needle = normalise(fact);
  const wordChar = /[\p{L}\p{N}]/u;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) {
    const before = haystack[at - 1];
    const after = haystack[at + needle.length];
    const startsWord = !wordChar.test(needle[0] ?? "") || before === undefined || !wordChar.test(before);
    const endsWord = !wordChar.test(needle[needle.length - 1] ?? "") || after === undefined || !wordChar.test(after);
    if (startsWord && endsWord) return true;
  }
  return false;
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
  /** Answered questions whose answer's first sentence comes from a right page. */
  leadHit?: number;
  /** Of the questions whose top search result is a right page, the share whose answer leads from a right page. */
  leadHitWhenTopRight?: number;
  topRightQuestions: number;
  /** The median length of the answers given, in characters. */
  medianLength?: number;
  /** Answers given that repeat a sentence. */
  repeating?: number;
  /** Answerable questions the answerer declined: the worse failure. */
  declinedAnswerable?: number;
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
    topRightQuestions: 0,
  };
  if (answered.length > 0) {
    figures.factRate = share(withFact, (outcome) => outcome.answer?.factFound === true);
    figures.answered = share(answered, (outcome) => outcome.answer?.answered === true);
    figures.referenceHit = share(answered, (outcome) => outcome.answer?.referenceHit === true);
    figures.citesOtherSite = answered.filter((outcome) => outcome.answer?.answered === true && outcome.answer.citesOtherSite).length;
    const given = answered.filter((outcome) => outcome.answer?.answered === true);
    figures.leadHit = share(given, (outcome) => outcome.answer?.leadHit === true);
    const topRight = answered.filter((outcome) => outcome.firstRelevant === 1);
    figures.topRightQuestions = topRight.length;
    figures.leadHitWhenTopRight = share(topRight, (outcome) => outcome.answer?.leadHit === true);
    figures.declinedAnswerable = answered.length - given.length;
  }
  const lengths = outcomes.flatMap((outcome) => (outcome.answer?.answered ? [outcome.answer.length] : []));
  if (lengths.length > 0) figures.medianLength = median(lengths);
  if (lengths.length > 0) figures.repeating = outcomes.filter((outcome) => outcome.answer?.answered && outcome.answer.repeats).length;
  const declinable = unanswerable.filter((outcome) => outcome.answer);
  if (declinable.length > 0) figures.declined = share(declinable, (outcome) => outcome.answer?.answered === false);
  return figures;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
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
