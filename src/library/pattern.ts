/**
 * String-param patterns: RE2 syntax and semantics, compiled and matched by
 * re2js (the JavaScript port of Google's RE2/J), so a match takes time linear
 * in the value's length whatever the pattern, with no backtracking.
 *
 * StackQL declares `pattern` as an RE2 expression. Almanac accepts the part of
 * RE2 that reads the same in the backtracking engines people also run these
 * patterns with (JavaScript's RegExp, Python's re) and that cannot make them
 * hang; `checkPortable` refuses the rest by name before RE2 compiles: what RE2
 * lacks (backreferences, lookarounds), nested quantifiers like `(a+)+`
 * (exponential for a backtracking engine), inline flags, POSIX classes like
 * `[[:alpha:]]` and escapes other than `\d \w \s \b \A \z \x` and the control
 * ones. What passes is RE2's to judge and to match.
 */
import { RE2JS, RE2JSException } from "re2js";

/** Longer patterns are refused; the real library's longest is ~70 characters. */
export const MAX_PATTERN_LENGTH = 256;

/** RE2's own limit on `{n,m}` counts. */
const MAX_REPEAT = 1000;

/** Bounds the compiled program (RE2's instruction count), so the work per character of a value is bounded too. */
const MAX_PROGRAM_SIZE = 5000;

/** Why a pattern was refused; the message names the construct. */
export class PatternError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PatternError";
  }
}

/** A compiled pattern; `matches` tests the whole value (RE2 full match). */
export interface SafePattern {
  readonly source: string;
  matches(value: string): boolean;
}

/**
 * Checks and compiles an RE2 pattern, or throws PatternError saying why it is refused.
 *
 * @example compilePattern("^i-[0-9a-f]{8,17}$").matches("i-0abcd1234ef567890") // true
 */
export function compilePattern(source: string): SafePattern {
  if (source.length > MAX_PATTERN_LENGTH) {
    throw new PatternError(`pattern is longer than ${MAX_PATTERN_LENGTH} characters`);
  }
  checkPortable(source);
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(source);
  } catch (error) {
    if (error instanceof RE2JSException) throw new PatternError(error.message.replace(/^error parsing regexp: /i, ""));
    throw error;
  }
  if (compiled.programSize() > MAX_PROGRAM_SIZE) throw new PatternError("pattern is too large once its repetitions are expanded");
  return { source, matches: (value) => compiled.testExact(value) };
}

/** What a quantifier would repeat: the last atom or group. */
interface Repeatable {
  /** It can match a character (an assertion or an empty group cannot). */
  consumes: boolean;
  /** It holds a repetition of more than once (`*`, `+`, `{2}`, …). */
  repeats: boolean;
  /** A quantifier was applied to it already. */
  quantified: boolean;
}

/** `\` escapes RE2 and the backtracking engines read alike: classes, control characters, assertions. */
const CLASS_ESCAPES = new Set(["d", "D", "w", "W", "s", "S", "n", "t", "r", "f", "v", "a"]);
const ASSERTION_ESCAPES = new Set(["b", "B", "A", "z"]);

/**
 * Walks the pattern once, as RE2's parser would, and refuses what Almanac
 * does not accept (see the module comment) or what is malformed in a way the
 * walk already sees, with the same messages Almanac has always given.
 */
function checkPortable(source: string): void {
  const chars = Array.from(source);
  /** The open groups, outermost first; each says whether it consumes and repeats. */
  const groups: Omit<Repeatable, "quantified">[] = [{ consumes: false, repeats: false }];
  let last: Repeatable | undefined;
  let pos = 0;
  const atom = (consumes: boolean) => {
    last = { consumes, repeats: false, quantified: false };
    const open = groups.at(-1);
    if (open && consumes) open.consumes = true;
  };
  while (pos < chars.length) {
    const char = chars[pos] as string;
    const quantifier = quantifierAt(chars, pos);
    if (quantifier) {
      if (!last) throw new PatternError(`missing argument to repetition operator "${chars.slice(pos, pos + quantifier.length).join("")}"`);
      if (last.quantified) throw new PatternError("a quantifier cannot follow a quantifier (possessive or doubled repetition is not RE2)");
      if (!last.consumes) throw new PatternError("nothing to repeat before a quantifier");
      if (quantifier.max > 1 && last.repeats) {
        throw new PatternError("nested quantifiers (a repeated group that itself repeats, like (a+)+) are refused");
      }
      last.quantified = true;
      const open = groups.at(-1);
      if (open && quantifier.max > 1) open.repeats = true;
      pos += quantifier.length;
      if (chars[pos] === "?") pos += 1; // lazy: the same language, so the same full-match answer
      continue;
    }
    pos += 1;
    if (char === "(") {
      pos = groupHead(chars, pos);
      groups.push({ consumes: false, repeats: false });
      last = undefined;
    } else if (char === ")") {
      const group = groups.pop();
      const outer = groups.at(-1);
      if (!group || !outer) throw new PatternError(`unbalanced ")" at position ${pos - 1}`);
      outer.consumes ||= group.consumes;
      outer.repeats ||= group.repeats;
      last = { ...group, quantified: false };
    } else if (char === "|") {
      last = undefined;
    } else if (char === "[") {
      pos = classEnd(chars, pos);
      atom(true);
    } else if (char === "^" || char === "$") {
      atom(false);
    } else if (char === "\\") {
      const escaped = chars[pos];
      pos = escapeEnd(chars, pos, false);
      atom(!ASSERTION_ESCAPES.has(escaped ?? ""));
    } else {
      atom(true);
    }
  }
  if (groups.length > 1) throw new PatternError('missing closing ")"');
}

/** `*`, `+`, `?` or `{n}`, `{n,}`, `{n,m}` at `pos`, with how many characters it takes; RE2 reads any other `{` as a literal. */
function quantifierAt(chars: readonly string[], pos: number): { max: number; length: number } | undefined {
  const char = chars[pos];
  if (char === "*" || char === "+") return { max: Infinity, length: 1 };
  if (char === "?") return { max: 1, length: 1 };
  if (char !== "{") return undefined;
  const counted = /^\{(\d+)(,(\d*))?\}/.exec(chars.slice(pos, pos + 16).join(""));
  if (!counted) return undefined;
  const min = Number(counted[1]);
  const max = counted[2] === undefined ? min : counted[3] === "" ? Infinity : Number(counted[3]);
  if (min > MAX_REPEAT || (max !== Infinity && max > MAX_REPEAT)) throw new PatternError(`repetition counts above ${MAX_REPEAT} are not allowed`);
  if (max < min) throw new PatternError(`bad repetition {${min},${max}}`);
  return { max, length: counted[0].length };
}

/** Past a group's opening `(` (at `pos`): only `(…)`, `(?:…)` and named groups are accepted. */
function groupHead(chars: readonly string[], pos: number): number {
  if (chars[pos] !== "?") return pos;
  const head = chars.slice(pos, pos + 3).join("");
  if (head.startsWith("?:")) return pos + 2;
  if (head.startsWith("?=") || head.startsWith("?!") || head === "?<=" || head === "?<!") {
    throw new PatternError("lookarounds are not supported (RE2 has none)");
  }
  if (head.startsWith("?P<") || head.startsWith("?<")) {
    const close = chars.indexOf(">", pos);
    const name = chars.slice(pos + (head.startsWith("?P<") ? 3 : 2), close).join("");
    if (close < 0 || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new PatternError("invalid named group");
    return close + 1;
  }
  throw new PatternError("inline flags and other (?…) groups are not supported; only (…) and (?:…)");
}

/** Past a character class whose `[` is just before `pos`; its ranges are RE2's to check. */
function classEnd(chars: readonly string[], pos: number): number {
  let at = chars[pos] === "^" ? pos + 1 : pos;
  let first = true;
  while (chars[at] !== "]" || first) {
    const char = chars[at];
    if (char === undefined) throw new PatternError('missing closing "]"');
    if (char === "[" && chars[at + 1] === ":") throw new PatternError("POSIX classes like [[:alpha:]] are not supported; write the range");
    at = char === "\\" ? escapeEnd(chars, at + 1, true) : at + 1;
    first = false;
  }
  return at + 1;
}

/** Past an escape whose `\` is just before `pos`; inside a class, assertions make no sense and are refused. */
function escapeEnd(chars: readonly string[], pos: number, inClass: boolean): number {
  const char = chars[pos];
  if (char === undefined) throw new PatternError("trailing backslash");
  if (CLASS_ESCAPES.has(char) || (!inClass && ASSERTION_ESCAPES.has(char))) return pos + 1;
  if (/[1-9]/.test(char)) throw new PatternError("backreferences are not supported (RE2 has none)");
  if (char === "x") {
    const rest = chars.slice(pos + 1, pos + 11).join("");
    const hex = /^\{([0-9A-Fa-f]{1,6})\}/.exec(rest) ?? /^([0-9A-Fa-f]{2})/.exec(rest);
    if (!hex || Number.parseInt(hex[1] ?? "", 16) > 0x10ffff) throw new PatternError("bad \\x escape");
    return pos + 1 + hex[0].length;
  }
  if (/[A-Za-z0-9]/.test(char)) throw new PatternError(`escape \\${char} is not supported`);
  return pos + 1;
}
