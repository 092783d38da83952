// String-param patterns: RE2 syntax, full-match semantics, refusals at
// ingestion, and a matcher whose time does not explode on hostile input.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_PATTERN_LENGTH, PatternError, compilePattern } from "../../src/library/pattern.ts";
import { preparedStackqlLibrary } from "../support/library-fixtures.ts";

const matches = (pattern: string, value: string) => compilePattern(pattern).matches(value);

describe("compilePattern", () => {
  it("compiles every pattern of the real library and accepts its examples", () => {
    const params = preparedStackqlLibrary().entries.flatMap((entry) => entry.params.filter((param) => param.pattern));
    expect(params.length).toBeGreaterThan(5);
    for (const param of params) expect(matches(param.pattern ?? "", String(param.example)), param.pattern).toBe(true);
  });

  it.each([
    ["^i-[0-9a-f]{8,17}$", "i-0abcd1234ef567890", true],
    ["^i-[0-9a-f]{8,17}$", "i-0abcd1234ef567890 ", false],
    ["^(organizations|folders)/[0-9]+$", "folders/42", true],
    ["^(organizations|folders)/[0-9]+$", "projects/42", false],
    ["[a-z]+", "abc", true],
    ["[a-z]+", "abc1", false], // a whole-value match, as StackQL's renderer does (re.fullmatch)
    ["a.c", "a\nc", false],
    ["\\d{3}-\\w+", "123-ab_c", true],
    ["[^']*", "it's", false],
    ["\\bword\\b", "word", true],
    ["x{,3}", "x{,3}", true], // not a repetition, so literal, as in RE2
    ["(?:ab)+c?", "ababc", true],
    ["(?P<year>\\d{4})-\\d\\d", "2026-11", true],
    ["\\x41\\x{42}", "AB", true],
    ["[\\d-]+", "12-3", true],
    ["😀+", "😀😀", true],
  ])("%s against %j is %s", (pattern, value, expected) => {
    expect(matches(pattern, value)).toBe(expected);
  });

  it.each([
    ["(a)\\1", "backreferences are not supported (RE2 has none)"],
    ["(?=a)a", "lookarounds are not supported (RE2 has none)"],
    ["(?<!a)b", "lookarounds are not supported (RE2 has none)"],
    ["(a+)+$", "nested quantifiers (a repeated group that itself repeats, like (a+)+) are refused"],
    ["(\\d{2})*", "nested quantifiers (a repeated group that itself repeats, like (a+)+) are refused"],
    ["a*+", "a quantifier cannot follow a quantifier (possessive or doubled repetition is not RE2)"],
    ["(?i)abc", "inline flags and other (?…) groups are not supported; only (…) and (?:…)"],
    ["[[:alpha:]]", "POSIX classes like [[:alpha:]] are not supported; write the range"],
    ["\\pL", "escape \\p is not supported"],
    ["a{1001}", "repetition counts above 1000 are not allowed"],
    ["(ab", 'missing closing ")"'],
    ["ab)", 'unbalanced ")" at position 2'],
    ["*a", 'missing argument to repetition operator "*"'],
    ["x".repeat(MAX_PATTERN_LENGTH + 1), `pattern is longer than ${MAX_PATTERN_LENGTH} characters`],
    ["[a-z]{1000}".repeat(6), "pattern is too large once its repetitions are expanded"],
  ])("refuses %s", (pattern, message) => {
    expect(() => compilePattern(pattern)).toThrow(new PatternError(message));
  });

  it("allows an optional group that repeats inside, which cannot backtrack badly", () => {
    expect(matches("^[a-z]+(-[a-z0-9]+)?$", "us-east1")).toBe(true);
  });

  it("answers in linear time where a backtracking engine would not", () => {
    // (a|a)* and a*a*a*…: exponential and polynomial blow-ups for backtracking engines.
    // A backtracking engine would not return on these before the test timeout; no clock needed.
    const hostile = `${"a".repeat(5000)}!`;
    expect(matches("(a|a)*b", hostile)).toBe(false);
    expect(matches("a*a*a*a*a*a*a*a*b", hostile)).toBe(false);
  });

  it("agrees with JavaScript's own engine on patterns both understand", () => {
    const atom = fc.constantFrom("a", "b", "[ab]", "[^a]", ".", "\\d", "(?:ab)", "(?:a|b)", "x");
    const quantifier = fc.constantFrom("", "*", "+", "?", "{2}", "{1,3}");
    const pattern = fc.array(fc.tuple(atom, quantifier), { minLength: 1, maxLength: 5 }).map((parts) => parts.map(([a, q]) => a + q).join(""));
    const value = fc.stringMatching(/^[abx1\n]{0,8}$/);
    fc.assert(
      fc.property(pattern, value, (source, text) => {
        expect(matches(source, text)).toBe(new RegExp(`^(?:${source})$`).test(text));
      }),
      { numRuns: 500 },
    );
  });
});
