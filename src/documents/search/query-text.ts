/**
 * Words that carry no topic: dropped from queries (unless nothing else is
 * left) so "how do I ..." does not match every chunk in the corpus. Besides
 * function words, the verbs and fillers people wrap questions in ("what
 * happens when X is used up") are here: they rank chunks by phrasing, not topic.
 */
const STOPWORDS = new Set(
  (
    "a about all also an and any are as at be been being between but by can could do does did doing for from " +
    "get gets getting got happen happens happened has have how i if in into is it its just me my need needs " +
    "not of on or our out should so some than that the their them then there these this those to up use used " +
    "using was way we were what when where which who whom why will with would you your " +
    // Words people pad questions with: "I really want to know how many…", "tried something".
    "actually anything currently know many much please possible really something somehow tell thing things tried trying want wanted wants"
  ).split(" "),
);

import { stemmer } from "stemmer";
import type { MatchTerm } from "./choose-match.ts";

/** At most this many distinct terms reach FTS; longer queries add noise, not recall. */
const MAX_QUERY_TERMS = 32;

/**
 * Letters and digits, joined by `_`, `-` or `.` inside a term, so identifiers
 * such as get_documents, NOT_FOUND, mcp-remote or wrangler.toml stay one term.
 */
const TERM = /[\p{L}\p{N}]+(?:[_.-][\p{L}\p{N}]+)*/gu;

/** A term with `_`, `.` or `-` inside: an identifier, file or command name. */
export const IDENTIFIER = /[\p{L}\p{N}]+(?:[_.-][\p{L}\p{N}]+)+/gu;

/** The identifiers among a query's terms, lower-cased. */
export function queryIdentifiers(text: string): string[] {
  return queryTerms(text).filter((term) => /[_.-]/.test(term));
}

function isTopical(word: string): boolean {
  return !STOPWORDS.has(word) && (word.length > 1 || /\p{N}/u.test(word));
}

/**
 * The search terms of free user text, lower-cased. Everything outside a term
 * (quotes, `*`, `:`, parentheses, emoji) is a separator, so no user text can
 * ever be FTS5 syntax. Stopwords are dropped unless nothing else is left.
 */
export function queryTerms(text: string): string[] {
  const distinct = [...new Set(text.toLowerCase().match(TERM) ?? [])];
  const topical = distinct.filter(isTopical);
  return (topical.length > 0 ? topical : distinct).slice(0, MAX_QUERY_TERMS);
}

/** The single topical words of a query: its terms split at `_`, `-` and `.`. */
export function queryWords(text: string): string[] {
  const words = queryTerms(text).flatMap((term) => term.split(/[_.-]/));
  return [...new Set(words.filter(isTopical))];
}

/**
 * The alternatives of a query's MATCH expression, each quoted, with the
 * index terms (Porter stems) it reads: one for a word, one per part for an
 * identifier or a camelCase phrase. choose-match.ts chooses among them.
 *
 * @example matchTerms("jsonDecode get_documents") // [{ text: '"jsondecode"', stems: ["jsondecod"] }, { text: '"get_documents"', stems: ["get", "document"] }, { text: '"json decode"', stems: ["json", "decod"] }]
 */
export function matchTerms(text: string): MatchTerm[] {
  const alternatives = [...new Set([...queryTerms(text), ...camelCaseParts(text)])];
  return alternatives.map((term) => ({ text: `"${term}"`, stems: (term.match(/[\p{L}\p{N}]+/gu) ?? []).map(stem) }));
}

/**
 * `jsonDecode` is one indexed token, but pages also write "JSON decode" or
 * `json_decode`: a camelCase identifier in the query also searches its parts
 * as a phrase.
 *
 * @example camelCaseParts("use jsonDecode here") // ["json decode"]
 */
export function camelCaseParts(text: string): string[] {
  const parts: string[] = [];
  // Ranking splits every candidate chunk this way, so the text is scanned for the rare lower-to-upper joint first and only those words are matched whole.
  CAMEL_JOINT.lastIndex = 0;
  for (let joint = CAMEL_JOINT.exec(text); joint !== null; joint = CAMEL_JOINT.exec(text)) {
    let start = joint.index;
    while (start > 0 && isWordCharacter(text.charCodeAt(start - 1))) start -= 1;
    let wordEnd = joint.index + 1;
    while (wordEnd < text.length && isWordCharacter(text.charCodeAt(wordEnd))) wordEnd += 1;
    // The word's other joints are passed over.
    CAMEL_JOINT.lastIndex = wordEnd;
    const split = camelSplit(text.slice(start, wordEnd));
    if (split !== null) parts.push(split);
  }
  return parts;
}

/** camelSplit's answers: a site's identifiers recur in chunk after chunk; emptied when full, so it stays small. */
const camelSplits = new Map<string, string | null>();
const CAMEL_SPLITS_KEPT = 10_000;

/** A camelCase word's parts, lower case, space-separated ("json decode"), or null when the word is not camelCase. */
function camelSplit(word: string): string | null {
  let split = camelSplits.get(word);
  if (split === undefined) {
    split = CAMEL_CASE.test(word) ? word.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase() : null;
    if (camelSplits.size >= CAMEL_SPLITS_KEPT) camelSplits.clear();
    camelSplits.set(word, split);
  }
  return split;
}

const CAMEL_JOINT = /[a-z0-9][A-Z]/g;
/** Whether a UTF-16 code is what `\b` counts as a word character (`\w`: ASCII letters, digits, `_`), without a regex call per character. */
function isWordCharacter(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 95;
}
const CAMEL_CASE = /^(?:[a-z]+(?:[A-Z][a-z0-9]*)+|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+)$/;

/**
 * The Porter stem of a word, as FTS5's `porter` tokenizer indexes it, so
 * query words can be looked up in the index vocabulary and found in chunk text.
 */
export function stem(word: string): string {
  // The index drops diacritics (remove_diacritics 2), so "café" must be looked up as "cafe".
  return stemmer(word.toLowerCase().normalize("NFD").replace(/\p{M}/gu, ""));
}
