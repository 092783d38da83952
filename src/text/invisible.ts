/**
 * Text a reader cannot see must not reach a model: Unicode tag characters
 * can spell "ignore all previous instructions" invisibly, zero-width
 * characters hide words inside words, and bidirectional controls make code
 * read differently from how it runs ("Trojan Source", CVE-2021-42574).
 * Every ingested page goes through removeInvisible before anything else.
 */

/**
 * Tag characters (U+E0000–U+E007F); zero-width space, word joiner and the
 * invisible operators (U+200B, U+2060–U+2064), the zero-width no-break space
 * (U+FEFF), the Mongolian vowel separator (U+180E); the bidirectional
 * embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) and
 * marks (U+200E, U+200F, U+061C).
 */
const ALWAYS_INVISIBLE = /[\u{E0000}-\u{E007F}\u200B\u2060-\u2064\uFEFF\u180E\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/gu;

/**
 * Zero-width joiner and non-joiner (U+200D, U+200C) are spelling in Persian,
 * the Indic scripts and emoji sequences (👩‍💻): kept between two non-ASCII
 * letters, marks or symbols, removed anywhere else.
 */
const JOINER = /[\u200C\u200D]/gu;
const JOINABLE_BEFORE = /(?![\p{ASCII}])[\p{L}\p{M}\p{S}\p{Extended_Pictographic}]$/u;
const JOINABLE_AFTER = /^(?![\p{ASCII}])[\p{L}\p{M}\p{S}\p{Extended_Pictographic}]/u;

/** Text without invisible characters, and how many were removed. */
export interface VisibleText {
  text: string;
  removed: number;
}

/**
 * `text` with every invisible character removed (see ALWAYS_INVISIBLE;
 * joiners only outside the scripts that spell with them).
 *
 * @example removeInvisible("ig\u200Bnore\u{E0049}").text // "ignore"
 */
export function removeInvisible(text: string): VisibleText {
  let removed = 0;
  const always = text.replace(ALWAYS_INVISIBLE, () => {
    removed += 1;
    return "";
  });
  const joined = always.replace(JOINER, (joiner, offset: number, whole: string) => {
    const before = whole.slice(Math.max(0, offset - 2), offset);
    const after = whole.slice(offset + 1, offset + 3);
    if (JOINABLE_BEFORE.test(before) && JOINABLE_AFTER.test(after)) return joiner;
    removed += 1;
    return "";
  });
  return { text: joined, removed };
}
