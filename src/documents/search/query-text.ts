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
  let wordEnd = 0;
  for (const joint of text.matchAll(CAMEL_JOINT)) {
    if (joint.index < wordEnd) continue;
    let start = joint.index;
    while (start > 0 && WORD_CHARACTER.test(text[start - 1] as string)) start -= 1;
    wordEnd = joint.index + 1;
    while (wordEnd < text.length && WORD_CHARACTER.test(text[wordEnd] as string)) wordEnd += 1;
    const word = text.slice(start, wordEnd);
    if (CAMEL_CASE.test(word)) parts.push(word.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase());
  }
  return parts;
}

const CAMEL_JOINT = /[a-z0-9][A-Z]/g;
/** What `\b` counts as a word character. */
const WORD_CHARACTER = /\w/;
const CAMEL_CASE = /^(?:[a-z]+(?:[A-Z][a-z0-9]*)+|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+)$/;

/**
 * The Porter stem of a word, as FTS5's `porter` tokenizer indexes it, so
 * query words can be looked up in the index vocabulary and found in chunk text.
 */
export function stem(word: string): string {
  // The index drops diacritics (remove_diacritics 2), so "café" must be looked up as "cafe".
  return stemmer(word.toLowerCase().normalize("NFD").replace(/\p{M}/gu, ""));
}
