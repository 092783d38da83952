import { compileFilter } from "../search/filter.ts";
import type { RankedCandidate, WeightedTerm } from "../search/rank.ts";
import { DEFAULT_RANKING, type RankingWeights } from "../search/ranking-weights.ts";
import { retrieveChunks, toChunkHit } from "../search/retrieve.ts";
import type { ChunkHit } from "../document.ts";
import { sentencesOf, type Sentence } from "./sentences.ts";
import { likelihoodOf } from "./sentence-model.ts";
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

export const NO_GROUNDED_ANSWER =
  "No grounded answer: the documentation has nothing that answers this question. Try search_documents with other words, or check that the right documentation is ingested.";

/** How many top chunks the answer may draw from. */
const CANDIDATE_CHUNKS = 8;
/** Only the top chunks are asked whether the question is answerable. */
const GATE_CHUNKS = 3;
/** Weights of sentence choice, named so `npm run eval:tune` can vary them (see DEFAULT_ANSWERING). */
export interface AnsweringWeights {
  readonly answerableCoverage: number;
  readonly concreteBonus: number;
  readonly crossParagraphs: boolean;
  readonly centroid: number;
  readonly leadByQuestion: boolean;
  readonly centroidChunks: number;
  readonly maxSentences: number;
  readonly maxChars: number;
  readonly relativeFloor: number;
  readonly continuationFloor: number;
  readonly maxContinuation: number;
  readonly newCoverage: number;
  readonly newPageCoverage: number;
  readonly topPages: number;
  readonly topPageFloor: number;
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
  /** Multiplier for sentences with inline code, a number or a code block of their own. */
  concreteBonus: 1.3,
  /** The best sentence's continuation may run into the next paragraphs of its chunk. */
  crossParagraphs: true,
  /** Weight of a sentence's centrality to the top chunks, beside its coverage of the question. */
  centroid: 0.5,
  /** The lead sentence is the one that covers the question best, centrality aside. */
  leadByQuestion: true,
  /** How many top chunks define what the answer is about. */
  centroidChunks: 3,
  /** At most this many sentences: an answer, not a page (room for the lead's paragraph and one sentence per top page). */
  maxSentences: 16,
  /** Stop adding sentences past this length (characters, code included). */
  maxChars: 2600,
  /**
   * The fill after the top pages takes the likeliest sentences (sentence-model.ts), each at least
   * this share of the likeliest one's likelihood once its overlap with the answer is discounted
   * (dart-go-unseen.json: facts 0.657 → 0.714 at 0.2 or 0.1; 0.5 drops them to 0.629).
   */
  relativeFloor: 0.2,
  /** The sentences right after the best one continue its explanation when this related. */
  continuationFloor: 0,
  /** How many sentences may follow the best one. */
  maxContinuation: 3,
  /**
   * A sentence beyond the lead, its continuation and the top page's best is
   * added only when it covers at least this share of the question's
   * rarity-weighted words that the answer does not cover yet (padding on the
   * same words). Off: measured at 0.1 it raised references (real-tune 0.75 →
   * 0.78) but cost facts (dart-go-unseen 0.60 → 0.51), because the sentence
   * stating a fact usually repeats the question's words (EVALUATION.md).
   */
  newCoverage: 0,
  /**
   * The same for a sentence from a top page the answer does not cite yet: 0,
   * because one sentence from a second page that covers the same words is the
   * reader's second source, not padding (real-tune.json: references 0.74 → 0.79).
   */
  newPageCoverage: 0,
  /**
   * Each of this many top-ranked pages (of the answer's site) gives the answer
   * its best sentence, so the references hold what search ranks highest: a
   * reader who asks gets the pages a reader who searches would open
   * (real-tune.json: references 0.753 → 0.844, above search's R@5 of 0.818;
   * with maxSentences and maxChars raised so the lead's paragraph keeps its
   * room, facts 0.548 → 0.643).
   */
  topPages: 8,
  /** …when that sentence scores at least this share of the lead's: a page with nothing on the question adds nothing. */
  topPageFloor: 0.3,
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
 * Answers a question by query-focused extractive synthesis: retrieve the
 * best chunks (the same ranking as search), score their sentences by the
 * rarity-weighted share of the question they cover, lead with the best one
 * and what it introduces (its continuation, its code sample), add the best
 * evidence of the other top pages, group by page and cite each sentence.
 * Every word is copied from a referenced document, so it needs no model and
 * cannot invent anything.
 */
export async function answerQuery(
  db: D1Reader,
  request: { query: string; filter?: string },
  weights: AnswerWeights = DEFAULT_ANSWER_WEIGHTS,
  semantic?: SemanticSearch,
): Promise<Answer> {
  return (await answerWithSources(db, request, weights, semantic)).answer;
}

/** An answer and, per reference (in the same order), the chunk its first cited sentence comes from. */
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
  const noAnswer: SourcedAnswer = { answer: { answerText: NO_GROUNDED_ANSWER, references: [], citations: [] }, sources: [] };
  const candidates = await candidateSentences(db, request, weights, semantic);
  if (!candidates) return noAnswer;
  const { sentences, shape, hits, terms } = candidates;
  const chosen = chooseSentences(sentences, shape, hits, terms, weights.answering);
  if (chosen.length === 0) return noAnswer;
  const answer = composeAnswer(chosen);
  // Every reference is the page of a chosen sentence, so the look-up always finds one.
  const sources = answer.references.map((parent) => toChunkHit((chosen.find((sentence) => sentence.hit.parent === parent) as Sentence).hit));
  if (sources.some((source) => source.document.version)) answer.referenceVersions = sources.map((source) => source.document.version ?? "");
  return { answer, sources };
}

/** What an answer is chosen from: the sentences of its candidate chunks, scored. */
export interface CandidateSentences {
  sentences: Sentence[];
  hits: RankedCandidate[];
  terms: WeightedTerm[];
  shape: QuestionShape;
}

/**
 * Retrieves the answer's candidate chunks (one data source, one version) and
 * scores their sentences; null when none of the top chunks covers enough of
 * the question to answer it. `npm run eval:fit` fits the sentence model to
 * exactly these sentences.
 */
export async function candidateSentences(
  db: D1Reader,
  request: { query: string; filter?: string },
  weights: AnswerWeights = DEFAULT_ANSWER_WEIGHTS,
  semantic?: SemanticSearch,
): Promise<CandidateSentences | null> {
  const filter = compileFilter(request.filter);
  const retrieved = await retrieveChunks(db, request.query, { source: request.filter, compiled: filter }, weights.ranking, semantic);
  const { terms, namedSites } = retrieved;
  // An answer never mixes versions: one per data source, the best-ranked one's.
  const ranked = oneVersionPerSource(retrieved.ranked);
  const quoted = answerSources(ranked, namedSites);
  const hits: RankedCandidate[] = ranked.filter((hit) => quoted.has(hit.document.dataSource)).slice(0, CANDIDATE_CHUNKS);
  if (!hits.slice(0, GATE_CHUNKS).some((hit) => hit.coverage >= weights.answering.answerableCoverage)) return null;
  const shape = shapeOf(request.query);
  const cache = new Map<string, string>();
  const read = (hit: RankedCandidate) => sentencesOf(hit, { procedural: shape.procedural }, cache);
  const sentences = hits.flatMap(read);
  const prose = topPageProse(hits, ranked, sentences, read);
  if (prose) {
    hits.push(prose.hit);
    sentences.push(...prose.sentences);
  }
  scoreSentences(sentences, terms, hits, weights.answering);
  return { sentences, hits, terms, shape };
}

/**
 * The top page's candidate chunks can be all code (`dart info`'s is the
 * command and its output): the page search ranks first would then give the
 * answer no sentence and go uncited. Its best-ranked chunk with prose joins
 * the candidates (real-tune.json: references 0.844 → 0.857, facts 0.643 →
 * 0.667; dart-go.json: references 0.958 → 0.965).
 */
function topPageProse(
  hits: readonly RankedCandidate[],
  ranked: readonly RankedCandidate[],
  sentences: readonly Sentence[],
  read: (hit: RankedCandidate) => Sentence[],
): { hit: RankedCandidate; sentences: Sentence[] } | null {
  const top = hits[0];
  if (!top || sentences.some((sentence) => sentence.hit.parent === top.parent)) return null;
  for (const hit of ranked) {
    if (hit.parent !== top.parent || hits.includes(hit)) continue;
    const more = read(hit);
    if (more.length > 0) return { hit, sentences: more };
  }
  return null;
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
 * A sentence's score: the rarity-weighted share of the question it covers
 * (a word only in its section heading counts half: the heading sets the
 * topic), times how well its chunk ranked. Questions in the docs ("Ask: how
 * does X work?") restate the query and answer nothing; a list item starting
 * in lower case is a fragment of the sentence above it. Its likelihood is the
 * fitted model's reading of the same measures (sentence-model.ts).
 */
function scoreSentences(sentences: Sentence[], terms: readonly WeightedTerm[], hits: readonly RankedCandidate[], answering: AnsweringWeights): void {
  const total = terms.reduce((sum, term) => sum + term.weight, 0) || 1;
  const topScore = hits[0]?.score || 1;
  const centrality = centralityOf(sentences, hits, answering.centroidChunks);
  const pages = [...new Set(hits.map((hit) => hit.parent))];
  for (const sentence of sentences) {
    let covered = 0;
    let own = 0;
    let ownWeight = 0;
    let headingWeight = 0;
    for (const term of terms) {
      if (sentence.headingStems.has(term.stem)) headingWeight += term.weight;
      if (sentence.stems.has(term.stem)) {
        covered += term.weight;
        ownWeight += term.weight;
        own += 1;
      } else if (sentence.headingStems.has(term.stem) || sentence.codeStems?.has(term.stem)) {
        // The section heading sets the sentence's topic; the code it introduces is what it says: both count half.
        covered += 0.5 * term.weight;
      }
    }
    const long = sentence.text.length > 400;
    const asks = sentence.text.endsWith("?");
    const fragment = /^\p{Ll}/u.test(sentence.text);
    const concrete = /`[^`]+`|\d/.test(sentence.text);
    const chunkPrior = Math.sqrt(Math.max(0.05, sentence.hit.score / topScore));
    sentence.features = {
      questionShare: ownWeight / total,
      headingShare: headingWeight / total,
      centrality: centrality.get(sentence) ?? 0,
      chunkPrior,
      earlyPage: 1 / (1 + pages.indexOf(sentence.hit.parent)),
      code: sentence.code ? 1 : 0,
      concrete: concrete ? 1 : 0,
      long: long ? 1 : 0,
      question: asks ? 1 : 0,
      fragment: fragment ? 1 : 0,
    };
    sentence.likelihood = likelihoodOf(sentence.features);
    if (own === 0 && answering.centroid === 0) continue;
    const lengthPenalty = long ? 0.7 : 1;
    const questionPenalty = asks ? 0.3 : 1;
    const fragmentPenalty = fragment ? 0.6 : 1;
    // A sentence naming something concrete (code, a number, a flag) is more often the answer than one restating the question.
    const concreteBonus = sentence.code || concrete ? answering.concreteBonus : 1;
    const shape = chunkPrior * lengthPenalty * questionPenalty * fragmentPenalty * concreteBonus;
    sentence.leadScore = (covered / total) * shape;
    sentence.score = (covered / total + answering.centroid * (centrality.get(sentence) ?? 0)) * shape;
  }
}

/**
 * How central a sentence is to what the top chunks are about (0–1): its
 * overlap with their salient words, weighted by how often the top chunks use
 * a word and how rare it is among all candidate sentences. A paraphrased
 * question shares few words with its answer ("events pile up before anyone
 * listens"), but the answer is what the top chunks keep talking about
 * (`onListen`); this is centroid-based extractive summarisation.
 */
function centralityOf(sentences: readonly Sentence[], hits: readonly RankedCandidate[], centroidChunks: number): Map<Sentence, number> {
  const top = new Set(hits.slice(0, centroidChunks));
  const sentenceFrequency = new Map<string, number>();
  const topFrequency = new Map<string, number>();
  for (const sentence of sentences) {
    const inTop = top.has(sentence.hit);
    for (const word of sentence.stems) {
      sentenceFrequency.set(word, (sentenceFrequency.get(word) ?? 0) + 1);
      if (inTop) topFrequency.set(word, (topFrequency.get(word) ?? 0) + 1);
    }
  }
  const count = sentences.length || 1;
  const raw = new Map<Sentence, number>();
  let max = 0;
  for (const sentence of sentences) {
    let weight = 0;
    for (const word of sentence.stems) {
      const inTop = topFrequency.get(word) ?? 0;
      // A word only this sentence uses says nothing about the chunks' topic.
      if (inTop < 2) continue;
      weight += inTop * Math.log(count / (sentenceFrequency.get(word) ?? 1));
    }
    const score = weight / Math.sqrt(Math.max(8, sentence.stems.size));
    raw.set(sentence, score);
    max = Math.max(max, score);
  }
  for (const [sentence, score] of raw) raw.set(sentence, max === 0 ? 0 : score / max);
  return raw;
}

/**
 * The best sentence leads, followed by the sentences that continue it in its
 * paragraph; the best sentence of the top-ranked page is always there (search
 * ranks pages better than single sentences can), and so is the best sentence
 * of each of the other top pages that has one on the question (a comparison's
 * two sides are usually two pages); then the sentences likeliest to state
 * what was asked (sentence-model.ts), each penalised by its overlap with what
 * is already chosen (maximal marginal relevance), so the answer does not
 * repeat itself.
 */
function chooseSentences(
  sentences: Sentence[],
  shape: QuestionShape,
  hits: readonly RankedCandidate[],
  terms: readonly WeightedTerm[],
  answering: AnsweringWeights,
): Sentence[] {
  const candidates = sentences.filter((sentence) => sentence.score > 0).sort((a, b) => b.score - a.score);
  // The lead states what was asked, so it is chosen by the question's words alone; centrality only helps fill in.
  const best = answering.leadByQuestion ? [...candidates].sort((a, b) => b.leadScore - a.leadScore)[0] : candidates[0];
  if (!best) return [];
  const chosen: Sentence[] = [best];
  const lengthOf = (list: readonly Sentence[]) => list.reduce((sum, sentence) => sum + sentence.text.length + (sentence.code?.length ?? 0), 0);
  const add = (sentence: Sentence | undefined) => {
    if (sentence && !chosen.includes(sentence) && chosen.length < answering.maxSentences && lengthOf(chosen) < answering.maxChars) chosen.push(sentence);
  };
  const bestOfPage = (parent: string | undefined) => candidates.find((sentence) => sentence.hit.parent === parent);
  const continuation = sentences.filter(
    (sentence) => sentence.hit === best.hit && (answering.crossParagraphs || sentence.paragraph === best.paragraph) && sentence.order > best.order,
  );
  for (const next of continuation.slice(0, answering.maxContinuation)) {
    if (next.score < answering.continuationFloor * best.score && !best.text.endsWith(":")) break;
    add(next);
  }
  add(bestOfPage(hits[0]?.parent));
  // Then each top page's best sentence, in rank order: the pages search would show first.
  for (const page of [...new Set(hits.map((hit) => hit.parent))].slice(0, answering.topPages)) {
    const sentence = bestOfPage(page);
    if (sentence && sentence.score >= answering.topPageFloor * best.score) add(sentence);
  }
  const total = terms.reduce((sum, term) => sum + term.weight, 0) || 1;
  const uncovered = (sentence: Sentence) =>
    terms.reduce((sum, term) => (sentence.stems.has(term.stem) && !chosen.some((picked) => picked.stems.has(term.stem)) ? sum + term.weight : sum), 0) / total;
  // The sentence that states a paraphrased question's fact shares few of its words: the fitted likelihood finds it more often than the score does.
  const likeliest = [...candidates].sort((a, b) => b.likelihood - a.likelihood);
  const floor = answering.relativeFloor * (likeliest[0]?.likelihood ?? 0);
  for (const candidate of likeliest) {
    if (chosen.length >= answering.maxSentences || lengthOf(chosen) >= answering.maxChars) break;
    if (chosen.includes(candidate)) continue;
    const redundancy = Math.max(0, ...chosen.map((picked) => overlap(picked.stems, candidate.stems)));
    if (candidate.likelihood * (1 - 0.8 * redundancy) < floor) continue;
    // The answer already says what the question asks about: another sentence on the same words is padding.
    const newPage = !chosen.some((picked) => picked.hit.parent === candidate.hit.parent);
    // A how-to question is answered by the command: a sentence with its code block is never padding.
    const shows = shape.procedural && candidate.code !== undefined;
    if (!shows && uncovered(candidate) < (newPage ? answering.newPageCoverage : answering.newCoverage)) continue;
    add(candidate);
  }
  return chosen;
}

function overlap(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let shared = 0;
  for (const word of a) if (b.has(word)) shared += 1;
  return shared / Math.max(1, Math.min(a.size, b.size));
}

/** Groups the sentences by page (best page first) and cites each one. */
function composeAnswer(chosen: Sentence[]): Answer {
  const references: string[] = [];
  for (const sentence of chosen) if (!references.includes(sentence.hit.parent)) references.push(sentence.hit.parent);
  const encoder = new TextEncoder();
  const citations: Answer["citations"] = [];
  let answerText = "";
  let bytes = 0;
  const append = (text: string) => {
    answerText += text;
    bytes += encoder.encode(text).byteLength;
  };
  references.forEach((parent, referenceIndex) => {
    // Selection order: the best sentence and its continuation lead, then by relevance.
    const group = chosen.filter((sentence) => sentence.hit.parent === parent);
    if (answerText) append("\n\n");
    group.forEach((sentence, index) => {
      // Sentences of a page run on; a code block stands on lines of its own, cited with the sentence that introduces it.
      if (index > 0) append(group[index - 1]?.code ? "\n\n" : " ");
      const startIndex = bytes;
      append(sentence.code ? `${sentence.text}\n\n${sentence.code}` : sentence.text);
      citations.push({ startIndex, endIndex: bytes, sources: [{ referenceIndex }] });
    });
  });
  return { answerText, references, citations };
}
