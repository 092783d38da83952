/**
 * Re-ranking of BM25 candidates. BM25 alone judges each chunk by itself and
 * rewards a chunk that repeats one query word; a person looking for the
 * right page also asks whether the chunk covers the question's rare words,
 * whether its page is about the topic as a whole, and whether it belongs to
 * the site the question names. The weights are ranking-weights.ts's.
 */
import { IDENTIFIER, camelCaseParts, stem } from "./query-text.ts";
import type { Candidate, TermStatistics } from "./candidates.ts";
import type { RankingWeights } from "./ranking-weights.ts";

/** A query word with its stem and how much it says about the topic. */
export interface WeightedTerm {
  stem: string;
  weight: number;
}

/**
 * Query words weighted by rarity (BM25's IDF over the chunks, floored at a
 * small positive value so a very common word still counts a little).
 */
export function weighTerms(words: readonly string[], identifiers: readonly string[], statistics: TermStatistics): WeightedTerm[] {
  const n = Math.max(1, statistics.chunkCount);
  const idf = (frequency: number) => Math.max(0.1, Math.log(1 + (n - frequency + 0.5) / (frequency + 0.5)));
  const seen = new Set<string>();
  const terms: WeightedTerm[] = [];
  for (const word of words) {
    const wordStem = stem(word);
    if (seen.has(wordStem)) continue;
    seen.add(wordStem);
    // A word no chunk contains cannot be covered; it still counts against coverage, which is what makes a question unanswerable.
    terms.push({ stem: wordStem, weight: idf(statistics.chunkFrequency.get(wordStem) ?? 0) });
  }
  // An identifier (get_documents, wrangler.toml) names one thing: found whole, it says more than any
  // of its parts, which may be common words, so it weighs as much as the rarest word of the query, plus one.
  // A hyphenated word (built-in, go-to-definition) is ordinary prose: as rare as its rarest looked-up part.
  const rarest = Math.max(0, ...terms.map((term) => term.weight));
  for (const identifier of identifiers) {
    if (seen.has(identifier)) continue;
    seen.add(identifier);
    // Parts that are stopwords ("in" of built-in) were not looked up; they are the commonest, not the rarest.
    const known = identifier.split(/[_.-]/).flatMap((part) => statistics.chunkFrequency.get(stem(part)) ?? []);
    const weight = /[_.]/.test(identifier) ? rarest : idf(known.length > 0 ? Math.min(...known) : 0);
    terms.push({ stem: identifier, weight: weight + 1 });
  }
  return terms;
}

/**
 * Porter stems of the words of a text, memoised per call site through
 * `cache`, and its identifiers whole (`get_documents`, as queryTerms keeps them).
 */
export function stemsOf(text: string, cache: Map<string, string>): Set<string> {
  const stems = new Set<string>();
  const lower = text.toLowerCase();
  for (const identifier of lower.match(IDENTIFIER) ?? []) stems.add(identifier);
  for (const word of withCamelParts(text, lower).match(/[\p{L}\p{N}]+/gu) ?? []) {
    let wordStem = cache.get(word);
    if (wordStem === undefined) {
      wordStem = stem(word);
      cache.set(word, wordStem);
    }
    stems.add(wordStem);
  }
  return stems;
}

/**
 * `lower`, followed by the parts of the text's camelCase identifiers, split
 * as a query's are (camelCaseParts): a page's `outerLoop` covers a question's
 * "outer loop", and `onListen` its "listens". The index keeps such an
 * identifier as one word, so without this only the question's own
 * spelling of it would count.
 */
function withCamelParts(text: string, lower: string): string {
  const parts = camelCaseParts(text);
  return parts.length === 0 ? lower : `${lower}\n${parts.join(" ")}`;
}

/** How to find a query's stems and identifiers in a text without stemming all of it (stemFinder). */
interface StemFinder {
  /** Words that begin as one of the query's stems begins; null when the query has no single words. */
  words: RegExp | null;
  identifiers: readonly string[];
}

/**
 * What coverage asks of a chunk is only which of the query's stems and
 * identifiers it has. Porter stemming changes only a word's end, so a word
 * whose first two letters begin none of the query's stems cannot stem to
 * one: the finder's pattern matches just the other words, and identifiers
 * are looked for whole. Stemming every word of 200 chunks, and scanning
 * them for identifiers with a Unicode pattern, cost more than the search.
 */
export function stemFinder(terms: readonly WeightedTerm[]): StemFinder {
  const isIdentifier = (term: WeightedTerm) => /[_.-]/.test(term.stem);
  const prefixes = [...new Set(terms.filter((term) => !isIdentifier(term)).map((term) => term.stem.slice(0, 2)))];
  const escaped = prefixes.map((prefix) => prefix.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&"));
  return {
    words: escaped.length > 0 ? new RegExp(`(?<![\\p{L}\\p{N}])(?:${escaped.join("|")})[\\p{L}\\p{N}]*`, "gu") : null,
    identifiers: terms.filter(isIdentifier).map((term) => term.stem),
  };
}

const TERM_CHARACTER = /[\p{L}\p{N}]/u;

/** Whether `lower` has `identifier` as a whole term (not inside a longer identifier), as the IDENTIFIER pattern would find it. */
function hasIdentifier(lower: string, identifier: string): boolean {
  const continues = (char: string | undefined, beyond: string | undefined) =>
    char !== undefined && (TERM_CHARACTER.test(char) || (/[_.-]/.test(char) && beyond !== undefined && TERM_CHARACTER.test(beyond)));
  for (let at = lower.indexOf(identifier); at >= 0; at = lower.indexOf(identifier, at + 1)) {
    const end = at + identifier.length;
    if (!continues(lower[at - 1], lower[at - 2]) && !continues(lower[end], lower[end + 1])) return true;
  }
  return false;
}

/**
 * The query's stems and identifiers that `text` contains (a subset of what
 * stemsOf would give, and the same for coverage), memoised through `cache`.
 */
export function queryStemsIn(text: string, finder: StemFinder, cache: Map<string, string>): Set<string> {
  const found = new Set<string>();
  const lower = text.toLowerCase();
  for (const identifier of finder.identifiers) if (hasIdentifier(lower, identifier)) found.add(identifier);
  if (!finder.words) return found;
  // stem() folds diacritics, so a word written "éxito" begins as its stem "exito" does only once folded too.
  addStemsFound(/[^\x00-\x7f]/.test(lower) ? lower.normalize("NFD").replace(/\p{M}/gu, "") : lower, finder.words, cache, found);
  // The parts of its camelCase words (withCamelParts), which are ASCII.
  const parts = camelCaseParts(text);
  if (parts.length > 0) addStemsFound(parts.join(" "), finder.words, cache, found);
  return found;
}

/** Adds to `found` the stems of the words of `text` that `pattern` (a StemFinder's, global) finds, memoised through `cache`. */
function addStemsFound(text: string, pattern: RegExp, cache: Map<string, string>, found: Set<string>): void {
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const word = match[0];
    let wordStem = cache.get(word);
    if (wordStem === undefined) {
      wordStem = stem(word);
      cache.set(word, wordStem);
    }
    found.add(wordStem);
  }
}

/** Share of the query's weight that a set of stems covers, 0–1. */
function coverageOf(stems: ReadonlySet<string>, terms: readonly WeightedTerm[]): number {
  let total = 0;
  let covered = 0;
  for (const term of terms) {
    total += term.weight;
    if (stems.has(term.stem)) covered += term.weight;
  }
  // No weighed words (nothing searchable): coverage says nothing, so it leaves BM25's order alone.
  return total === 0 ? 1 : covered / total;
}

/** A candidate with its final score. */
export interface RankedCandidate extends Candidate {
  score: number;
  /** IDF-weighted share of the query's words the chunk (with its title and headings) contains. */
  coverage: number;
}

/**
 * Orders candidates best first: each chunk's BM25, scaled by how much of
 * the question it covers, plus its page's evidence, favouring the site the
 * query names. The retrieval pipeline (retrieve.ts) spreads the final order
 * over pages, once, after any fusion.
 */
export function rankCandidates(
  candidates: readonly Candidate[],
  terms: readonly WeightedTerm[],
  namedSites: ReadonlySet<string>,
  ranking: RankingWeights,
): RankedCandidate[] {
  if (candidates.length === 0) return [];
  const cache = new Map<string, string>();
  const finder = stemFinder(terms);
  const releasesAsked = asksAboutReleases(terms);
  const best = Math.max(...candidates.map((candidate) => candidate.bm25)) || 1;
  // The site index's words for a chunk count as its own (the UPSERT a page about INSERT never says).
  const stems = candidates.map((candidate) => queryStemsIn(`${candidate.document.title}\n${candidate.content}\n${candidate.terms}`, finder, cache));
  const scored = candidates.map((candidate, index) => {
    const coverage = coverageOf(stems[index] as Set<string>, terms);
    const site = namedSites.has(candidate.document.dataSource) ? ranking.namedSite : 1;
    const release = releasesAsked || !isReleaseNote(candidate) ? 1 : ranking.releaseNotes;
    return { ...candidate, coverage, score: (candidate.bm25 / best) * coverage ** ranking.coverage * site * release };
  });

  const pageScores = new Map<string, number[]>();
  for (const candidate of scored) {
    const scores = pageScores.get(candidate.parent) ?? [];
    scores.push(candidate.score);
    pageScores.set(candidate.parent, scores);
  }
  const pageScore = new Map<string, number>();
  for (const [parent, scores] of pageScores) {
    scores.sort((a, b) => b - a);
    pageScore.set(parent, (scores[0] ?? 0) + ranking.pageSecond * (scores[1] ?? 0));
  }
  for (const candidate of scored) {
    candidate.score = (1 - ranking.page) * candidate.score + ranking.page * (pageScore.get(candidate.parent) ?? 0);
  }
  scored.sort((a, b) => b.score - a.score || a.parent.localeCompare(b.parent) || a.position - b.position);
  return scored;
}

/** Stems of the words that ask about versions: "which version added…", "released", "changelog", "deprecated since". */
const RELEASE_STEMS = new Set(["version", "releas", "changelog", "deprec", "upgrad"]);

/** True when the question asks about versions or releases: one of RELEASE_STEMS, or a version number ("3.25", "v18"). */
function asksAboutReleases(terms: readonly WeightedTerm[]): boolean {
  return terms.some((term) => RELEASE_STEMS.has(term.stem) || /^v?\d+(?:\.\d+)*$/.test(term.stem));
}

/** A release note's words for itself: "Release Notes", "Changelog", "Changes", "What's New", "History". */
const RELEASE_WORDS = /\b(?:releases?|release notes|changelog|change log|changes|what'?s new|news|history)\b/i;
/** A version number standing alone: 3.25, 7.2.0, v18.0.0 (not a section number glued to words, not an IP). */
const VERSION_NUMBER = /(?<![\w.])v?\d+\.\d+(?:\.\d+)?(?![\w.]|\.\d)/;

/**
 * A chunk of release notes, by what its page and headings say of it: a
 * release word and a version number in its title or heading path ("CMake
 * 3.25 Release Notes", "Changelog > pytest 7.2.0 (2022-10-23) > Bug Fixes",
 * "Release History > 2022-11-16 (3.40.0)"), whatever generator made it.
 */
function isReleaseNote(candidate: Candidate): boolean {
  const path = `${candidate.document.title} > ${candidate.heading}`;
  return RELEASE_WORDS.test(path) && VERSION_NUMBER.test(path);
}

/**
 * The data sources a query names: a site's first host label (`dart` for
 * dart.dev, `go` for go.dev) as a word of the query.
 *
 * @example namedSites(["go", "modules"], ["go.dev", "dart.dev"]) // Set { "go.dev" }
 */
export function namedSites(words: readonly string[], dataSources: readonly string[]): Set<string> {
  const wordSet = new Set(words.map((word) => word.toLowerCase()));
  return new Set(dataSources.filter((source) => wordSet.has(source.split(".")[0]?.toLowerCase() ?? "")));
}
