/**
 * String-param patterns, in RE2 syntax, checked without a backtracking engine.
 *
 * StackQL declares `pattern` as a Go RE2 expression. JavaScript's RegExp is a
 * backtracking engine: `(a+)+$` against "aaaa…!" takes exponential time, and
 * its syntax differs from RE2's in ways that silently change meaning
 * (`[[:alpha:]]`, `\z`). So a pattern is parsed here into RE2's subset and
 * matched by a Thompson NFA simulation (RE2's own approach): time is linear in
 * the value's length times the pattern's size, whatever either contains.
 * What RE2 lacks (backreferences, lookarounds) and what a backtracking port
 * would choke on (nested quantifiers) is refused when the entry is ingested.
 */
import { compileProgram, runProgram } from "./pattern-matcher.ts";
import { PatternError, parsePattern } from "./pattern-parser.ts";

export { PatternError } from "./pattern-parser.ts";

/** Longer patterns are refused; the real library's longest is ~70 characters. */
export const MAX_PATTERN_LENGTH = 256;

/** A compiled pattern; `matches` tests the whole value (RE2 full match). */
export interface SafePattern {
  readonly source: string;
  matches(value: string): boolean;
}

/** Parses and compiles an RE2 pattern, or throws PatternError saying why it is refused. */
export function compilePattern(source: string): SafePattern {
  if (source.length > MAX_PATTERN_LENGTH) {
    throw new PatternError(`pattern is longer than ${MAX_PATTERN_LENGTH} characters`);
  }
  const program = compileProgram(parsePattern(source));
  return { source, matches: (value) => runProgram(program, value) };
}
