/**
 * Text a reader cannot see must not reach a model: Unicode tag characters
 * can spell "ignore all previous instructions" invisibly, zero-width
 * characters hide words inside words, and bidirectional controls make code
 * read differently from how it runs ("Trojan Source", CVE-2021-42574).
 * Nor may control characters (NUL, ESC) reach a page or a terminal. Every
 * ingested page goes through removeInvisible before anything else.
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
 * C0 and C1 controls but tab, line feed and carriage return (NUL, BEL, ESC…):
 * never text, and a terminal showing a page would obey them.
 */
export const CONTROL_CHARACTERS = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x9F]/g;

/**
 * Zero-width joiner and non-joiner (U+200D, U+200C) are spelling in Persian,
 * the Indic scripts and emoji sequences (👩‍💻): kept between two non-ASCII
 * letters, marks or symbols, removed anywhere else.
 */
const JOINER = /[\u200C\u200D]/gu;
const JOINABLE_BEFORE = /(?![\p{ASCII}])[\p{L}\p{M}\p{S}\p{Extended_Pictographic}]$/u;
const JOINABLE_AFTER = /^(?![\p{ASCII}])[\p{L}\p{M}\p{S}\p{Extended_Pictographic}]/u;

/** Text without invisible characters, and how many were removed. */
interface VisibleText {
  text: string;
  removed: number;
}

/**
 * `text` with every invisible character removed (see ALWAYS_INVISIBLE and
 * CONTROL_CHARACTERS; joiners only outside the scripts that spell with them).
 *
 * @example removeInvisible("ig\u200Bnore\u{E0049}").text // "ignore"
 */
export function removeInvisible(text: string): VisibleText {
  let removed = 0;
  const count = () => {
    removed += 1;
    return "";
  };
  const always = text.replace(ALWAYS_INVISIBLE, count).replace(CONTROL_CHARACTERS, count);
  const joined = always.replace(JOINER, (joiner, offset: number, whole: string) => {
    const before = whole.slice(Math.max(0, offset - 2), offset);
    const after = whole.slice(offset + 1, offset + 3);
    if (JOINABLE_BEFORE.test(before) && JOINABLE_AFTER.test(after)) return joiner;
    removed += 1;
    return "";
  });
  return { text: joined, removed };
}
