import { compileFilter } from "./filter.ts";
import { markdownLines } from "../markdown/page.ts";
import { queryWords } from "./query-text.ts";
import { retrieveChunks, toChunkHit } from "./retrieve.ts";
import type { ChunkHit } from "./store.ts";

/** A grounded answer in the shape of Google's AnswerQueryResponse. */
export interface Answer {
  answerText: string;
  /** Document names, in the order the answer first cites them. */
  references: string[];
  /** Spans of answerText (UTF-8 byte offsets) and the references that ground them. */
  citations: { startIndex: number; endIndex: number; sources: { referenceIndex: number }[] }[];
}

export const NO_GROUNDED_ANSWER =
  "No grounded answer: the documentation has nothing that answers this question. Try search_documents with other words, or check that the right documentation is ingested.";

/** How many top chunks the answer may draw from. */
const CANDIDATE_CHUNKS = 12;
/** At most this many sentences: an answer, not a page. */
const MAX_SENTENCES = 5;
/** Stop adding sentences past this length (characters). */
const MAX_ANSWER_CHARS = 900;
/** A sentence from elsewhere must score at least this share of the best one to be added. */
const RELATIVE_SCORE_FLOOR = 0.65;
/** The sentences right after the best one continue its explanation when this related. */
const CONTINUATION_SCORE_FLOOR = 0.2;
/** How many sentences may follow the best one from its own paragraph. */
const MAX_CONTINUATION = 2;

interface Sentence {
  text: string;
  words: Set<string>;
  /** Words of the chunk's heading path (its first line), which set the sentence's topic. */
  headingWords: Set<string>;
  hit: ChunkHit;
  hitRank: number;
  paragraph: number;
  order: number;
  score: number;
}

/**
 * Answers a question by query-focused extractive synthesis: retrieve the best
 * chunks, score their sentences by the query terms they cover (weighted by
 * rarity), pick a short, non-redundant set, group them by page and cite each
 * sentence. Every word of the answer is copied from a referenced document, so
 * it needs no model and cannot invent anything.
 */
export async function answerQuery(db: D1Database, request: { query: string; filter?: string }): Promise<Answer> {
  const filter = compileFilter(request.filter);
  const noAnswer: Answer = { answerText: NO_GROUNDED_ANSWER, references: [], citations: [] };
  const { ranked } = await retrieveChunks(db, request.query, filter);
  const hits = ranked.slice(0, CANDIDATE_CHUNKS).map(toChunkHit);
  const terms = [...new Set(queryWords(request.query).map(stem))];
  const sentences = hits.flatMap((hit, hitRank) => sentencesOf(hit, hitRank));
  scoreSentences(sentences, terms);
  const chosen = chooseSentences(sentences, terms);
  return chosen.length === 0 ? noAnswer : composeAnswer(chosen);
}

/** Light suffix stripping so "quotas", "quota" and "configuring", "configure" meet. */
function stem(word: string): string {
  const lower = word.toLowerCase();
  if (lower.length <= 4) return lower;
  return lower.replace(/(?:ations?|ings?|ed|es|s|ly|e)$/, "") || lower;
}

function wordsOf(text: string): Set<string> {
  return new Set((text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).map(stem));
}

/** A short code sample may ride along with the sentence that introduces it. */
const MAX_INTRODUCED_CODE_CHARS = 320;

/**
 * Readable prose of a chunk, one entry per sentence or list item. Code is
 * not prose, except that a short code block directly after a sentence ending
 * in ":" ("The port comes from PORT:") completes that sentence, so it is kept.
 */
function sentencesOf(hit: ChunkHit, hitRank: number): Sentence[] {
  // A chunk starts with its heading path, then a blank line (chunkDocument).
  const [headingPath = "", , ...bodyLines] = hit.content.split("\n");
  const headingWords = wordsOf(headingPath);
  const body = bodyLines.join("\n");
  const blocks: { code: boolean; lines: string[] }[] = [];
  const item = /^\s*([-*+]|\d+[.)])\s+/;
  for (const line of markdownLines(body)) {
    const skipped = line.heading || /^\s*(\||<|:::|\{%)/.test(line.text);
    const last = blocks[blocks.length - 1];
    if (line.inFence) {
      if (last?.code && !/^ {0,3}(```|~~~)/.test(line.text)) last.lines.push(line.text);
      else if (last?.code) blocks.push({ code: false, lines: [] }); // the closing fence ends the block
      else blocks.push({ code: true, lines: [] });
      continue;
    }
    if (!last || last.code) blocks.push({ code: false, lines: [] });
    const prose = blocks[blocks.length - 1] as { lines: string[] };
    // List items stand alone; other lines continue their paragraph.
    prose.lines.push(skipped ? "" : item.test(line.text) ? `\n${line.text.replace(item, "")}` : line.text);
  }
  const sentences: Sentence[] = [];
  let paragraph = 0;
  for (const block of blocks) {
    const previous = sentences[sentences.length - 1];
    if (block.code) {
      const code = block.lines.join("\n").trim();
      if (previous?.hit === hit && previous.text.endsWith(":") && code && code.length <= MAX_INTRODUCED_CODE_CHARS) {
        previous.text = `${previous.text}\n${code}`;
      }
      continue;
    }
    for (const markdown of block.lines.join("\n").split(/\n\s*\n/)) {
      paragraph += 1;
      for (const text of plainText(markdown).split(/(?<=[.!?])\s+(?=[A-Z`"'(\[*_])/)) {
        const trimmed = text.trim();
        if (trimmed.length < 25 || !/[\p{L}]/u.test(trimmed)) continue;
        sentences.push({ text: trimmed, words: wordsOf(trimmed), headingWords, hit, hitRank, paragraph, order: sentences.length, score: 0 });
      }
    }
  }
  return sentences;
}

/** Markdown reduced to what reads well inline: links become their text. */
function plainText(markdown: string): string {
  return markdown
    .replace(/!\[[^\]]*\]\([^)]*\)/g, "")
    .replace(/\[([^\]]+)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]+)\]\[[^\]]*\]/g, "$1")
    .replace(/\s+/g, " ")
    .trim();
}

function scoreSentences(sentences: Sentence[], terms: string[]): void {
  const count = sentences.length || 1;
  const weight = new Map(
    terms.map((term) => {
      const frequency = sentences.filter((sentence) => sentence.words.has(term)).length;
      return [term, Math.log(1 + count / (1 + frequency))] as const;
    }),
  );
  for (const sentence of sentences) {
    const { headingWords } = sentence;
    let score = 0;
    let covered = 0;
    for (const term of terms) {
      if (sentence.words.has(term)) {
        score += weight.get(term) ?? 0;
        covered += 1;
      } else if (headingWords.has(term)) {
        // A term in the section heading grounds the sentence's topic, at a discount.
        score += 0.8 * (weight.get(term) ?? 0);
      }
    }
    if (covered === 0) continue;
    const coverage = covered / terms.length;
    const lengthPenalty = sentence.text.length > 400 ? 0.7 : 1;
    // A question in the docs ("Ask: how does X work?") restates the query; it answers nothing.
    const questionPenalty = sentence.text.includes("?") ? 0.3 : 1;
    // A list item starting in lower case finishes a sentence begun above it; alone it reads as a fragment.
    const fragmentPenalty = /^\p{Ll}/u.test(sentence.text) ? 0.5 : 1;
    const retrievalPrior = 1 / (1 + 0.3 * sentence.hitRank);
    sentence.score = score * (0.5 + coverage) * lengthPenalty * questionPenalty * fragmentPenalty * retrievalPrior;
  }
}

/**
 * The best sentence leads, followed by the sentences that continue it in its
 * paragraph (an explanation rarely fits one sentence); then the strongest
 * other sentences, each penalised by its overlap with what is already chosen
 * (maximal marginal relevance), so the answer does not repeat itself.
 */
function chooseSentences(sentences: Sentence[], terms: string[]): Sentence[] {
  const candidates = sentences.filter((sentence) => sentence.score > 0).sort((a, b) => b.score - a.score);
  const best = candidates[0];
  if (!best) return [];
  // The best sentence must speak to a real part of the question, or nothing does.
  const bestCoverage = terms.filter((term) => best.words.has(term) || best.headingWords.has(term)).length;
  if (bestCoverage < Math.max(1, Math.ceil(terms.length * 0.4))) return [];
  const chosen: Sentence[] = [best];
  const continuation = sentences.filter(
    (sentence) => sentence.hit === best.hit && sentence.paragraph === best.paragraph && sentence.order > best.order,
  );
  for (const next of continuation.slice(0, MAX_CONTINUATION)) {
    if (next.score < CONTINUATION_SCORE_FLOOR * best.score) break;
    chosen.push(next);
  }
  let length = chosen.reduce((sum, sentence) => sum + sentence.text.length, 0);
  for (const candidate of candidates) {
    if (chosen.length >= MAX_SENTENCES || length >= MAX_ANSWER_CHARS) break;
    if (chosen.includes(candidate)) continue;
    const redundancy = Math.max(0, ...chosen.map((picked) => overlap(picked.words, candidate.words)));
    if (candidate.score * (1 - 0.8 * redundancy) < RELATIVE_SCORE_FLOOR * best.score) continue;
    chosen.push(candidate);
    length += candidate.text.length;
  }
  return chosen;
}

function overlap(a: Set<string>, b: Set<string>): number {
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
  const paragraphs: string[] = [];
  let bytes = 0;
  references.forEach((parent, referenceIndex) => {
    // Selection order: the best sentence and its continuation lead, then by relevance.
    const group = chosen.filter((sentence) => sentence.hit.parent === parent);
    if (paragraphs.length > 0) bytes += encoder.encode("\n\n").byteLength;
    const parts: string[] = [];
    for (const sentence of group) {
      if (parts.length > 0) bytes += 1; // the joining space
      const length = encoder.encode(sentence.text).byteLength;
      citations.push({ startIndex: bytes, endIndex: bytes + length, sources: [{ referenceIndex }] });
      bytes += length;
      parts.push(sentence.text);
    }
    paragraphs.push(parts.join(" "));
  });
  return { answerText: paragraphs.join("\n\n"), references, citations };
}
