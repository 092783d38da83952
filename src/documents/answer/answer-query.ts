import { compileFilter } from "../search/filter.ts";
import type { RankedCandidate, WeightedTerm } from "../search/rank.ts";
import { DEFAULT_RANKING, type RankingWeights } from "../search/ranking-weights.ts";
import { retrieveChunks, toChunkHit } from "../search/retrieve.ts";
import type { ChunkHit } from "../document.ts";
import { choosePassages, scoreSentences, type Passage, type PassageWeights } from "./passage.ts";
import { sentencesOf } from "./sentences.ts";
import { oneVersionPerSource } from "./one-version.ts";
import type { D1Reader } from "../../d1/sessions.ts";
import { noteTouched, type Viewer, type Visibility } from "../access/visibility.ts";
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

/** A section heading longer than this (a long API signature) does not open the answer. */
const HEADING_CHARS = 200;

/** Weights of the answer's choice, named so `npm run eval:tune` can vary them (see DEFAULT_ANSWERING). */
export interface AnsweringWeights extends PassageWeights {
  readonly answerableCoverage: number;
  readonly seeAlso: number;
}

/**
 * The weights the product answers with (frozen: a variant is a new object).
 * Chosen on the site benchmark's tuning half (EVALUATION.md, "Answers that
 * answer").
 */
export const DEFAULT_ANSWERING: AnsweringWeights = Object.freeze({
  /**
   * The question is answerable when one of the top chunks covers at least
   * this IDF-weighted share of its words. Low on purpose: long questions
   * carry context no page repeats, and refusing a question the corpus
   * answers is the worse failure (EVALUATION.md has the measurements: no
   * word-coverage threshold on the passage itself declines unanswerable
   * questions without declining more answerable ones).
   */
  answerableCoverage: 0.2,
  /**
   * Exponent on a section's page's ranking score (as a share of the top
   * one's) in its sentences' scores: at 1 the answer leads from search's
   * first page for 0.91 of the questions whose first page is right (0.79 at
   * the old square root), with facts unchanged.
   */
  chunkRank: 1,
  /** Exponent on the share of the question the whole section covers (heading and title included): facts 0.321 → 0.337. */
  chunkCoverage: 1,
  /**
   * The passage grows past the answering sentence while it stays under this
   * many characters, code included (facts 0.342 at 700, 0.348 at 800 with
   * the median answer 754 → 831 characters).
   */
  passageChars: 700,
  /** The sentences before the answering one in its section join it when they are this short together: a section usually opens with what defines it. */
  contextChars: 500,
  /** Multiplier for a sentence that introduces a code sample when the question asks how (facts 0.348 → 0.353 at 1.3 to 2). */
  codeBonus: 1.6,
  /** Other top pages listed after the passage as "See also", by rank (references hold a right page 0.775 at 3, 0.791 at 4, 0.850 at 5). */
  seeAlso: 4,
  /**
   * A passage shorter than this (a reference entry that only links to its
   * tutorial, a section split over two chunks) is followed by the next best
   * section's passage, growing within what is left of passageChars (tuning
   * half, before the top page's other sections joined: facts 0.348 → 0.358
   * at 450, 0.374 at 600, the median answer 787 → 805 → 870 characters).
   */
  thinChars: 600,
});

/** Every weight an answer depends on: retrieval's ranking and sentence choice. Passed down from the caller, never read from module state. */
export interface AnswerWeights {
  ranking: RankingWeights;
  answering: AnsweringWeights;
}

/** The weights the product uses. */
export const DEFAULT_ANSWER_WEIGHTS: AnswerWeights = Object.freeze({ ranking: DEFAULT_RANKING, answering: DEFAULT_ANSWERING });

/** "How do I…", "command to…": the answer should show the code or command. */
const PROCEDURAL = /\b(how (do|can|should|would) (i|we|you)|how to|what(?:'s| is) the (command|way|flag|syntax)|command|install|set ?up|configure|connect|enable|disable|add|create|run|write|declare|define)\b/i;

/** A question (SPEC 2.3) and who asks it: the answer draws only on the data sources the viewer sees (visibility.ts); absent, the public ones. */
interface AnswerRequest {
  query: string;
  filter?: string;
  viewer?: Viewer;
}

/**
 * Answers a question with the passage of the documentation that answers it:
 * retrieve the best chunks (the same ranking as search), score their
 * sentences by the rarity-weighted share of the question they cover, and
 * answer with the contiguous passage around the best one, from its section
 * (passage.ts), and, when that passage is thin, the next best section's; the
 * other top pages follow as "See also" references. When no
 * passage covers the question the answer says so, cites nothing, and names
 * the closest pages it found. Every word is copied from a referenced
 * document, so it needs no model and cannot invent anything.
 */
export async function answerQuery(
  db: D1Reader,
  request: AnswerRequest,
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
  request: AnswerRequest,
  weights: AnswerWeights = DEFAULT_ANSWER_WEIGHTS,
  semantic?: SemanticSearch,
): Promise<SourcedAnswer> {
  const retrieved = await retrieveForAnswer(db, request, weights, semantic);
  const sourced = answerFrom(retrieved, request.query, weights.answering);
  if (request.viewer) noteTouched(request.viewer, retrieved.visibility, sourced.sources.map((source) => ({ dataSource: source.document.dataSource, name: source.parent })));
  return sourced;
}

/** What an answer is chosen from: the ranked chunks (one version per source), the top ones of the source it quotes, and the question's weighted words. */
interface Retrieved {
  ranked: RankedCandidate[];
  hits: RankedCandidate[];
  terms: WeightedTerm[];
  /** What the question's viewer sees (visibility.ts). */
  visibility: Visibility;
}

/** Retrieves the chunks an answer may quote: search's ranking, one version per data source, one data source (answerSources). */
async function retrieveForAnswer(
  db: D1Reader,
  request: AnswerRequest,
  weights: AnswerWeights = DEFAULT_ANSWER_WEIGHTS,
  semantic?: SemanticSearch,
): Promise<Retrieved> {
  const filter = compileFilter(request.filter);
  const retrieved = await retrieveChunks(db, request.query, { source: request.filter, compiled: filter, viewer: request.viewer }, weights.ranking, semantic);
  // An answer never mixes versions: one per data source, the best-ranked one's.
  const ranked = oneVersionPerSource(retrieved.ranked);
  const quoted = answerSources(ranked, retrieved.namedSites);
  const hits = ranked.filter((hit) => quoted.has(hit.document.dataSource)).slice(0, CANDIDATE_CHUNKS);
  return { ranked, hits, terms: retrieved.terms, visibility: retrieved.visibility };
}

/** The answer to `query` from what was retrieved for it: the passage and its See also, or a decline. */
function answerFrom({ ranked, hits, terms }: Retrieved, query: string, answering: AnsweringWeights): SourcedAnswer {
  if (!hits.slice(0, GATE_CHUNKS).some((hit) => hit.coverage >= answering.answerableCoverage)) return declined(ranked);
  const cache = new Map<string, string>();
  const sentences = hits.flatMap((hit) => sentencesOf(hit, cache));
  sentences.push(...topPageSections(hits, ranked).flatMap((hit) => sentencesOf(hit, cache)));
  const procedural = PROCEDURAL.test(query);
  scoreSentences(sentences, terms, hits, procedural, answering);
  // "How do I connect…" is answered by an introduction whose command opens the next section.
  const nextSection = (hit: RankedCandidate) => {
    const next = ranked.find((other) => other.parent === hit.parent && other.position === hit.position + 1);
    if (!next) return [];
    const known = sentences.filter((sentence) => sentence.hit === next);
    return known.length > 0 ? known : sentencesOf(next, cache);
  };
  const passages = choosePassages(sentences, procedural, answering, nextSection);
  if (passages.length === 0) return declined(ranked);
  const quoted: RankedCandidate[] = [];
  for (const passage of passages) if (!quoted.some((hit) => hit.parent === passage.hit.parent)) quoted.push(passage.hit);
  const seeAlso: RankedCandidate[] = [];
  for (const hit of hits) {
    if (seeAlso.length >= answering.seeAlso) break;
    if (!quoted.some((other) => other.parent === hit.parent) && !seeAlso.some((other) => other.parent === hit.parent)) seeAlso.push(hit);
  }
  const answer = composeAnswer(passages, quoted, seeAlso);
  const sources = [...quoted, ...seeAlso].map(toChunkHit);
  if (sources.some((source) => source.document.version)) answer.referenceVersions = sources.map((source) => source.document.version ?? "");
  return { answer, sources };
}

/**
 * The top page's other sections among the ranked chunks: search discounts a
 * page's further chunks so that results show several pages, an answer need
 * not (the top page's candidate chunk can even be all code, `dart info`'s
 * command and its output, and offer no sentence at all).
 */
function topPageSections(hits: readonly RankedCandidate[], ranked: readonly RankedCandidate[]): RankedCandidate[] {
  const top = hits[0];
  return top ? ranked.filter((hit) => hit.parent === top.parent && !hits.includes(hit)) : [];
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
 * Per passage, the section's heading (what the passage is about: an API
 * reference's entry is named only there; once when a second passage
 * continues the same section), then the passage, one citation per sentence
 * to its page (a code block cited with the sentence before it, a new
 * paragraph where the page has one), then "See also:" and the other pages'
 * titles, each cited to its page.
 */
function composeAnswer(passages: readonly Passage[], quoted: readonly RankedCandidate[], seeAlso: readonly RankedCandidate[]): Answer {
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
  passages.forEach((passage, at) => {
    const reference = quoted.findIndex((hit) => hit.parent === passage.hit.parent);
    if (at > 0) append("\n\n");
    const heading = sectionName(passage.hit.heading) || passage.hit.document.title;
    const previous = passages[at - 1];
    // A section split over two chunks is named once.
    const named = previous && (sectionName(previous.hit.heading) || previous.hit.document.title) === heading;
    if (heading && heading.length <= HEADING_CHARS && !named) {
      cite(heading, reference);
      append("\n\n");
    }
    passage.sentences.forEach((sentence, index) => {
      const previous = passage.sentences[index - 1];
      if (previous) append(previous.code || previous.hit !== sentence.hit || previous.paragraph !== sentence.paragraph ? "\n\n" : " ");
      cite(sentence.code ? `${sentence.text}\n\n${sentence.code}` : sentence.text, reference);
    });
  });
  if (seeAlso.length > 0) {
    append("\n\nSee also: ");
    seeAlso.forEach((hit, index) => {
      if (index > 0) append("; ");
      cite(hit.document.title || hit.parent, quoted.length + index);
    });
  }
  return { answerText, references: [...quoted.map((hit) => hit.parent), ...seeAlso.map((hit) => hit.parent)], citations };
}

/** The section's own heading (the last of its path), as a reader would see it: "html_last_updated_fmt", not Node's "x509.checkEmail()#" or Doxygen's "◆ SDL_AddTimer()". */
function sectionName(path: string): string {
  const last = path.split(" > ").pop() ?? "";
  return last.replace(/\\([\\`*_[\]()#<>!|-])/g, "$1").replace(/^[^\p{L}\p{N}_`(.$@-]+|#+$/gu, "").trim();
}
