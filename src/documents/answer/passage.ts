// Which passage answers the question: the section (a retrieved chunk: a heading and its
// paragraphs) whose sentence speaks to the question best, and the contiguous run of its
// sentences around that sentence.
import type { RankedCandidate, WeightedTerm } from "../search/rank.ts";
import type { Sentence } from "./sentences.ts";

/** The weights of passage choice (see DEFAULT_ANSWERING in answer-query.ts for each one's reason). */
export interface PassageWeights {
  readonly chunkRank: number;
  readonly chunkCoverage: number;
  readonly passageChars: number;
  readonly contextChars: number;
  readonly codeBonus: number;
  readonly thinChars: number;
}

/** A contiguous run of one section's sentences, the one that answers among them. */
export interface Passage {
  hit: RankedCandidate;
  sentences: Sentence[];
  /** The sentence that answers (the best-scoring one). */
  anchor: Sentence;
}

/**
 * A sentence's score: the rarity-weighted share of the question it covers
 * (a word only in its section heading, or only in the code it introduces,
 * counts half: the heading sets the topic), times how well its page ranked
 * and how much of the question its section covers as a whole.
 * Questions in the docs ("Ask: how does X work?") restate the query and
 * answer nothing; a list item starting in lower case is a fragment of the
 * sentence above it; a "sentence" over 400 characters is a paragraph
 * without full stops.
 */
export function scoreSentences(sentences: readonly Sentence[], terms: readonly WeightedTerm[], hits: readonly RankedCandidate[], procedural: boolean, weights: PassageWeights): void {
  const total = terms.reduce((sum, term) => sum + term.weight, 0) || 1;
  const topScore = hits[0]?.score || 1;
  const pageScore = new Map<string, number>();
  for (const hit of hits) pageScore.set(hit.parent, Math.max(pageScore.get(hit.parent) ?? 0, hit.score));
  for (const sentence of sentences) {
    let covered = 0;
    for (const term of terms) {
      if (sentence.stems.has(term.stem)) covered += term.weight;
      else if (sentence.headingStems.has(term.stem) || sentence.codeStems?.has(term.stem)) covered += 0.5 * term.weight;
    }
    sentence.coverage = covered / total;
    // A section ranks as its page does: search discounts a page's second chunk so results show several pages, an answer need not.
    const rank = pageScore.get(sentence.hit.parent) ?? sentence.hit.score;
    const section = Math.max(0.05, rank / topScore) ** weights.chunkRank * Math.max(0.05, sentence.hit.coverage) ** weights.chunkCoverage;
    const form = (sentence.text.length > 400 ? 0.7 : 1) * (sentence.text.endsWith("?") ? 0.3 : 1) * (/^\p{Ll}/u.test(sentence.text) ? 0.6 : 1);
    // A how-to question is answered by the command: the sentence that introduces a code sample.
    const shows = procedural && sentence.code ? weights.codeBonus : 1;
    sentence.score = sentence.coverage * section * form * shows;
  }
}

/**
 * The passages that answer: the best one (choosePassage) and, when it is thin
 * (under `thinChars`: a reference entry that only points to its tutorial, a
 * section split over two chunks), the best passage of another section too,
 * growing only within what is left of `passageChars`, none of its
 * sentences alike to the first's.
 */
export function choosePassages(
  sentences: readonly Sentence[],
  procedural: boolean,
  weights: PassageWeights,
  nextSection: (hit: RankedCandidate) => readonly Sentence[] = () => [],
): Passage[] {
  const first = choosePassage(sentences, procedural, weights, nextSection);
  if (!first) return [];
  const size = first.sentences.reduce((sum, sentence) => sum + sentence.text.length + (sentence.code?.length ?? 0), 0);
  if (size >= weights.thinChars) return [first];
  const rest = sentences.filter((sentence) => sentence.hit !== first.hit && !first.sentences.some((picked) => alike(picked, sentence)));
  const second = choosePassage(rest, procedural, { ...weights, passageChars: weights.passageChars - size }, nextSection);
  return second ? [first, second] : [first];
}

/**
 * The passage that answers: the best sentence (its section is the one that
 * answers), the sentences before it in its section when they are short
 * together (a definition usually opens the section), the sentence that
 * introduces it when it is an item of a list ("The options are:"), then the
 * sentences after it while the passage stays under `passageChars`. Code
 * samples ride with the sentence before them; a how-to question also gets
 * the next code sample of the section, or of the page's next section, when
 * the passage has none. A sentence
 * the passage already holds (or one nearly word for word alike) is left
 * out: sites repeat their boilerplate.
 */
function choosePassage(
  sentences: readonly Sentence[],
  procedural: boolean,
  weights: PassageWeights,
  nextSection: (hit: RankedCandidate) => readonly Sentence[] = () => [],
): Passage | null {
  let anchor: Sentence | undefined;
  for (const sentence of sentences) if (sentence.score > 0 && (!anchor || sentence.score > anchor.score)) anchor = sentence;
  if (!anchor) return null;
  const section = sentences.filter((sentence) => sentence.hit === anchor.hit);
  const sizeOf = (sentence: Sentence) => sentence.text.length + (sentence.code?.length ?? 0);
  const at = section.indexOf(anchor);
  let start = at;
  let before = 0;
  while (start > 0 && before + sizeOf(section[start - 1] as Sentence) <= weights.contextChars) {
    before += sizeOf(section[start - 1] as Sentence);
    start -= 1;
  }
  const opener = section[start - 1];
  if (opener && opener.text.endsWith(":") && !opener.code) start -= 1;
  const chosen: Sentence[] = [];
  const lengthOf = () => chosen.reduce((sum, sentence) => sum + sizeOf(sentence), 0);
  const add = (sentence: Sentence) => {
    if (!chosen.some((picked) => alike(picked, sentence))) chosen.push(sentence);
  };
  for (let index = start; index <= at; index += 1) add(section[index] as Sentence);
  let end = at + 1;
  for (; end < section.length; end += 1) {
    const next = section[end] as Sentence;
    const last = chosen[chosen.length - 1];
    // What a sentence ending in ":" introduces comes with it, whatever the length.
    const introduced = last?.text.endsWith(":") && !last.code;
    if (!introduced && lengthOf() + sizeOf(next) > weights.passageChars) break;
    add(next);
  }
  if (procedural && !chosen.some((sentence) => sentence.code)) {
    // The code sample that shows how: the next one in the section (or in the page's next section when it is a candidate too), with the sentences that lead to it.
    const following = [...section.slice(end), ...nextSection(anchor.hit)];
    const shows = following.findIndex((sentence) => sentence.code !== undefined);
    if (shows !== -1 && following.slice(0, shows + 1).reduce((sum, sentence) => sum + sizeOf(sentence), lengthOf()) <= 2 * weights.passageChars) {
      for (const sentence of following.slice(0, shows + 1)) add(sentence);
    }
  }
  // A passage does not end on "…like this:" without what it introduces.
  const last = chosen[chosen.length - 1];
  if (chosen.length > 1 && last !== anchor && last?.text.endsWith(":") && !last.code) chosen.pop();
  return { hit: anchor.hit, sentences: chosen, anchor };
}

/** Word for word alike: the same words, or all but a few of them (a site's boilerplate with one link changed). */
function alike(a: Sentence, b: Sentence): boolean {
  if (normalised(a.text) === normalised(b.text)) return true;
  let shared = 0;
  for (const word of a.stems) if (b.stems.has(word)) shared += 1;
  const union = a.stems.size + b.stems.size - shared;
  return union >= 6 && shared / union >= 0.9;
}

function normalised(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();
}
