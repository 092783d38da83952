import { compileFilter } from "../search/filter.ts";
import type { RankedCandidate, WeightedTerm } from "../search/rank.ts";
import { DEFAULT_RANKING, type RankingWeights } from "../search/ranking-weights.ts";
import { retrieveChunks, toChunkHit } from "../search/retrieve.ts";
import type { ChunkHit } from "../document.ts";
import { choosePassage, scoreSentences, type Passage, type PassageWeights } from "./passage.ts";
import { sentencesOf } from "./sentences.ts";
import { oneVersionPerSource } from "./one-version.ts";
import type { D1Reader } from "../../d1/sessions.ts";
import type { SemanticSearch } from "../../embeddings/semantic-search.ts";

/** A grounded answer in the shape of Google's AnswerQueryResponse. */
export interface Answer {
  answerText: string;
  /** Document names, in the order the answer first cites them. */
  references: string[];
  /** Spans of answerText (UTF-8 byte offsets) and the references that ground them. */
  citations: { startIndex: number; endIndex: number; sources: { referenceIndex: number }[] }[];
  /** Per reference, its page's version ('' for an unversioned page); absent when no reference is versioned. */
  referenceVersions?: string[];
}

const NO_GROUNDED_ANSWER_FOUND = "No grounded answer: the documentation has nothing that answers this question.";
const NO_GROUNDED_ANSWER_NEXT = "Try search_documents with other words, or check that the right documentation is ingested.";
/** The answer when search finds nothing at all; when it finds pages that do not answer, the answer names the closest of them too. */
export const NO_GROUNDED_ANSWER = `${NO_GROUNDED_ANSWER_FOUND} ${NO_GROUNDED_ANSWER_NEXT}`;

/** How many top chunks the answer may draw from. */
const CANDIDATE_CHUNKS = 8;
/** Only the top chunks are asked whether the question is answerable. */
const GATE_CHUNKS = 3;
/** A decline names this many of the pages it found closest. */
const CLOSEST_PAGES = 3;

/** Weights of the answer's choice, named so `npm run eval:tune` can vary them (see DEFAULT_ANSWERING). */
export interface AnsweringWeights extends PassageWeights {
  readonly answerableCoverage: number;
  readonly passageCoverage: number;
  readonly seeAlso: number;
}

/** The weights the product answers with (frozen: a variant is a new object). */
export const DEFAULT_ANSWERING: AnsweringWeights = Object.freeze({
  /**
   * The question is answerable when one of the top chunks covers at least
   * this IDF-weighted share of its words. Low on purpose: long questions
   * carry context no page repeats, and refusing a question the corpus
   * answers is the worse failure (EVALUATION.md has the measurements).
   */
  answerableCoverage: 0.2,
  /** …and when the sentence that answers covers at least this share itself (its heading and code at half). */
  passageCoverage: 0,
  /** Multiplier for sentences with inline code, a number or a code block of their own. */
  concreteBonus: 1.3,
  /** The passage grows past the answering sentence while it stays under this many characters (code included). */
  passageChars: 600,
  /** The sentences before the answering one in its paragraph join it when they are this short together. */
  contextChars: 300,
  /** Other top pages listed after the passage as "See also", by rank. */
  seeAlso: 3,
});

/** Every weight an answer depends on: retrieval's ranking and sentence choice. Passed down from the caller, never read from module state. */
export interface AnswerWeights {
  ranking: RankingWeights;
  answering: AnsweringWeights;
}

/** The weights the product uses. */
export const DEFAULT_ANSWER_WEIGHTS: AnswerWeights = Object.freeze({ ranking: DEFAULT_RANKING, answering: DEFAULT_ANSWERING });

/** What kind of answer a question wants, read from its wording. */
interface QuestionShape {
  /** "How do I…", "command to…": the answer should show the code or command. */
  procedural: boolean;
}

const PROCEDURAL = /\b(how (do|can|should|would) (i|we|you)|how to|what(?:'s| is) the (command|way|flag|syntax)|command|install|set ?up|configure|connect|enable|disable|add|create|run|write|declare|define)\b/i;

function shapeOf(query: string): QuestionShape {
  return { procedural: PROCEDURAL.test(query) };
}

/**
 * Answers a question with the passage of the documentation that answers it:
 * retrieve the best chunks (the same ranking as search), score their
 * sentences by the rarity-weighted share of the question they cover, and
 * answer with the contiguous passage around the best one, from its section
 * (passage.ts); the other top pages follow as "See also" references. When no
 * passage covers the question the answer says so, cites nothing, and names
 * the closest pages it found. Every word is copied from a referenced
 * document, so it needs no model and cannot invent anything.
 */
export async function answerQuery(
  db: D1Reader,
  request: { query: string; filter?: string },
  weights: AnswerWeights = DEFAULT_ANSWER_WEIGHTS,
  semantic?: SemanticSearch,
): Promise<Answer> {
  return (await answerWithSources(db, request, weights, semantic)).answer;
}

/** An answer and, per reference (in the same order), the chunk it draws on. */
export interface SourcedAnswer {
  answer: Answer;
  sources: ChunkHit[];
}

/** `answerQuery` with the chunk that grounds each reference (the REST API returns it as the reference's document chunk). */
export async function answerWithSources(
  db: D1Reader,
  request: { query: string; filter?: string },
  weights: AnswerWeights = DEFAULT_ANSWER_WEIGHTS,
  semantic?: SemanticSearch,
): Promise<SourcedAnswer> {
  const filter = compileFilter(request.filter);
  const retrieved = await retrieveChunks(db, request.query, { source: request.filter, compiled: filter }, weights.ranking, semantic);
  // An answer never mixes versions: one per data source, the best-ranked one's.
  const ranked = oneVersionPerSource(retrieved.ranked);
  const quoted = answerSources(ranked, retrieved.namedSites);
  const hits = ranked.filter((hit) => quoted.has(hit.document.dataSource)).slice(0, CANDIDATE_CHUNKS);
  const decline = () => declined(ranked);
  const { answering } = weights;
  if (!hits.slice(0, GATE_CHUNKS).some((hit) => hit.coverage >= answering.answerableCoverage)) return decline();
  const shape = shapeOf(request.query);
  const cache = new Map<string, string>();
  const sentences = hits.flatMap((hit) => sentencesOf(hit, shape, cache));
  scoreSentences(sentences, retrieved.terms, hits, answering);
  const passage = choosePassage(sentences, shape.procedural, answering);
  if (!passage || passage.anchor.coverage < answering.passageCoverage) return decline();
  const seeAlso: RankedCandidate[] = [];
  for (const hit of hits) {
    if (seeAlso.length >= answering.seeAlso) break;
    if (hit.parent !== passage.hit.parent && !seeAlso.some((other) => other.parent === hit.parent)) seeAlso.push(hit);
  }
  const answer = composeAnswer(passage, seeAlso);
  const sources = [passage.hit, ...seeAlso].map(toChunkHit);
  if (sources.some((source) => source.document.version)) answer.referenceVersions = sources.map((source) => source.document.version ?? "");
  return { answer, sources };
}

/**
 * No passage answers: the answer says so, cites nothing, and names the
 * pages it found closest, so the reader knows what the documentation does
 * hold and where to look.
 */
function declined(ranked: readonly RankedCandidate[]): SourcedAnswer {
  const closest: RankedCandidate[] = [];
  for (const hit of ranked) if (closest.length < CLOSEST_PAGES && !closest.some((other) => other.parent === hit.parent)) closest.push(hit);
  const named = closest.map((hit) => `“${hit.document.title || hit.parent}” (${hit.parent})`);
  const answerText = named.length === 0 ? NO_GROUNDED_ANSWER : `${NO_GROUNDED_ANSWER_FOUND} The closest pages are ${named.join(", ")}. ${NO_GROUNDED_ANSWER_NEXT}`;
  return { answer: { answerText, references: [], citations: [] }, sources: [] };
}

/**
 * The data sources an answer may quote: those the question names, or else
 * the one its top-ranked chunks agree on (the most ranking score among the
 * candidate chunks). An answer about waiting for Dart futures has no business
 * ending on Go's scheduler, even when a Go chunk ranks eighth.
 */
function answerSources(ranked: readonly RankedCandidate[], named: ReadonlySet<string>): Set<string> {
  const present = new Set(ranked.map((hit) => hit.document.dataSource));
  const asked = [...named].filter((source) => present.has(source));
  if (asked.length > 0) return new Set(asked);
  const mass = new Map<string, number>();
  for (const hit of ranked.slice(0, CANDIDATE_CHUNKS)) mass.set(hit.document.dataSource, (mass.get(hit.document.dataSource) ?? 0) + hit.score);
  const [lead] = [...mass].sort((a, b) => b[1] - a[1])[0] ?? [];
  return new Set(lead === undefined ? [] : [lead]);
}


/**
 * The passage, one citation per sentence (a code block cited with the
 * sentence that introduces it, a new paragraph where the page has one), then
 * "See also:" and the other pages' titles, each cited to its page.
 */
function composeAnswer(passage: Passage, seeAlso: readonly RankedCandidate[]): Answer {
  const encoder = new TextEncoder();
  const citations: Answer["citations"] = [];
  let answerText = "";
  let bytes = 0;
  const append = (text: string) => {
    answerText += text;
    bytes += encoder.encode(text).byteLength;
  };
  const cite = (text: string, referenceIndex: number) => {
    const startIndex = bytes;
    append(text);
    citations.push({ startIndex, endIndex: bytes, sources: [{ referenceIndex }] });
  };
  passage.sentences.forEach((sentence, index) => {
    const previous = passage.sentences[index - 1];
    if (previous) append(previous.code || previous.paragraph !== sentence.paragraph ? "\n\n" : " ");
    cite(sentence.code ? `${sentence.text}\n\n${sentence.code}` : sentence.text, 0);
  });
  if (seeAlso.length > 0) {
    append("\n\nSee also: ");
    seeAlso.forEach((hit, index) => {
      if (index > 0) append("; ");
      cite(hit.document.title || hit.parent, index + 1);
    });
    append(".");
  }
  return { answerText, references: [passage.hit.parent, ...seeAlso.map((hit) => hit.parent)], citations };
}
