/**
 * Words that carry no topic: dropped from queries (unless nothing else is
 * left) so "how do I ..." does not match every chunk in the corpus.
 */
const STOPWORDS = new Set(
  (
    "a about an and are as at be but by can could do does did for from has have how i if in into is it its " +
    "me my not of on or our should so than that the their them then there these this those to was we what " +
    "when where which who whom why will with would you your"
  ).split(" "),
);

/** At most this many distinct terms reach FTS; longer queries add noise, not recall. */
const MAX_QUERY_TERMS = 32;

/**
 * The search terms of free user text: lower-cased runs of letters and digits.
 * Everything else (quotes, `*`, `-`, `:`, parentheses, emoji) is a separator,
 * so no user text can ever be FTS5 syntax.
 */
export function queryTerms(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const distinct = [...new Set(words)];
  const topical = distinct.filter((word) => !STOPWORDS.has(word) && (word.length > 1 || /\p{N}/u.test(word)));
  return (topical.length > 0 ? topical : distinct).slice(0, MAX_QUERY_TERMS);
}

/**
 * An FTS5 MATCH expression for free text: every term quoted (so `NEAR`, `AND`
 * or `x:y` are only words) and OR-ed, leaving BM25 to rank chunks that match
 * more and rarer terms first. Null when the text has no searchable term.
 *
 * @example ftsQueryFor('"foo* AND (bar') // '"foo" OR "and" OR "bar"'
 */
export function ftsQueryFor(text: string): string | null {
  const terms = queryTerms(text);
  if (terms.length === 0) return null;
  return terms.map((term) => `"${term}"`).join(" OR ");
}
