// The RE2 subset string-param patterns may use, parsed into a syntax tree;
// what RE2 lacks, or what a backtracking port would choke on, is refused here.
// See pattern.ts for why Almanac matches patterns itself.

/** RE2's own limit on `{n,m}` counts. */
const MAX_REPEAT = 1000;

/** Why a pattern was refused; the message names the construct. */
export class PatternError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PatternError";
  }
}

/** An inclusive range of code points. */
export type Range = readonly [number, number];
export type Assertion = "begin" | "end" | "word" | "not-word";
/** The syntax tree: character sets, sequences, alternatives, bounded or unbounded repeats, and zero-width assertions. */
export type Node =
  | { kind: "empty" }
  | { kind: "set"; ranges: Range[] }
  | { kind: "concat"; items: Node[] }
  | { kind: "alt"; options: Node[] }
  | { kind: "repeat"; node: Node; min: number; max: number }
  | { kind: "assert"; which: Assertion };

const MAX_CODE_POINT = 0x10ffff;
const DIGIT: Range[] = [[0x30, 0x39]];
/** `\w`, which word-boundary assertions also use. */
export const WORD: Range[] = [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]];
const SPACE: Range[] = [[0x09, 0x0a], [0x0c, 0x0d], [0x20, 0x20]];
const NOT_NEWLINE: Range[] = [[0, 0x09], [0x0b, MAX_CODE_POINT]];

function complement(ranges: readonly Range[]): Range[] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const result: Range[] = [];
  let next = 0;
  for (const [lo, hi] of sorted) {
    if (lo > next) result.push([next, lo - 1]);
    next = Math.max(next, hi + 1);
  }
  if (next <= MAX_CODE_POINT) result.push([next, MAX_CODE_POINT]);
  return result;
}

const PERL_CLASSES: Record<string, Range[]> = {
  d: DIGIT,
  D: complement(DIGIT),
  w: WORD,
  W: complement(WORD),
  s: SPACE,
  S: complement(SPACE),
};

const CONTROL_ESCAPES: Record<string, number> = { n: 0x0a, t: 0x09, r: 0x0d, f: 0x0c, v: 0x0b, a: 0x07 };

/** The largest number of characters a node can match in one go (Infinity when unbounded). */
function maxWidth(node: Node): number {
  switch (node.kind) {
    case "empty":
    case "assert":
      return 0;
    case "set":
      return 1;
    case "concat":
      return node.items.reduce((sum, item) => sum + maxWidth(item), 0);
    case "alt":
      return Math.max(...node.options.map(maxWidth));
    case "repeat":
      return node.max === 0 ? 0 : node.max === Infinity ? (maxWidth(node.node) > 0 ? Infinity : 0) : node.max * maxWidth(node.node);
  }
}

function containsRepetition(node: Node): boolean {
  switch (node.kind) {
    case "repeat":
      return node.max > 1 || containsRepetition(node.node);
    case "concat":
      return node.items.some(containsRepetition);
    case "alt":
      return node.options.some(containsRepetition);
    default:
      return false;
  }
}

/** Parses an RE2 pattern into a syntax tree, or throws PatternError. */
export function parsePattern(source: string): Node {
  return new Parser(source).parse();
}

class Parser {
  private readonly chars: string[];
  private pos = 0;

  constructor(source: string) {
    this.chars = Array.from(source);
  }

  parse(): Node {
    const node = this.alternation();
    if (this.pos < this.chars.length) throw new PatternError(`unbalanced ")" at position ${this.pos}`);
    return node;
  }

  private peek(offset = 0): string | undefined {
    return this.chars[this.pos + offset];
  }

  private alternation(): Node {
    const options = [this.concatenation()];
    while (this.peek() === "|") {
      this.pos += 1;
      options.push(this.concatenation());
    }
    return options.length === 1 ? (options[0] as Node) : { kind: "alt", options };
  }

  private concatenation(): Node {
    const items: Node[] = [];
    while (this.pos < this.chars.length && this.peek() !== "|" && this.peek() !== ")") {
      const atom = this.atom();
      items.push(this.quantified(atom));
    }
    if (items.length === 0) return { kind: "empty" };
    return items.length === 1 ? (items[0] as Node) : { kind: "concat", items };
  }

  private quantified(atom: Node): Node {
    const bounds = this.quantifier();
    if (!bounds) return atom;
    if (this.peek() === "?") this.pos += 1; // lazy: the same language, so the same full-match answer
    if (this.quantifier(true)) throw new PatternError("a quantifier cannot follow a quantifier (possessive or doubled repetition is not RE2)");
    if (atom.kind === "assert" || atom.kind === "empty") throw new PatternError("nothing to repeat before a quantifier");
    const [min, max] = bounds;
    if (max > 1 && containsRepetition(atom) && maxWidth(atom) > 0) {
      throw new PatternError("nested quantifiers (a repeated group that itself repeats, like (a+)+) are refused");
    }
    return { kind: "repeat", node: atom, min, max };
  }

  /** Reads `*`, `+`, `?` or `{n}`, `{n,}`, `{n,m}`; with `peekOnly`, reports without consuming. */
  private quantifier(peekOnly = false): [number, number] | null {
    const char = this.peek();
    const simple: Record<string, [number, number]> = { "*": [0, Infinity], "+": [1, Infinity], "?": [0, 1] };
    if (char && char in simple) {
      if (!peekOnly) this.pos += 1;
      return simple[char] ?? null;
    }
    if (char !== "{") return null;
    const rest = this.chars.slice(this.pos, this.pos + 16).join("");
    const counted = /^\{(\d+)(,(\d*))?\}/.exec(rest);
    if (!counted) return null; // RE2 reads a "{" that is not a repetition as a literal
    const min = Number(counted[1]);
    const max = counted[2] === undefined ? min : counted[3] === "" ? Infinity : Number(counted[3]);
    if (min > MAX_REPEAT || (max !== Infinity && max > MAX_REPEAT)) throw new PatternError(`repetition counts above ${MAX_REPEAT} are not allowed`);
    if (max < min) throw new PatternError(`bad repetition {${min},${max}}`);
    if (!peekOnly) this.pos += counted[0].length;
    return [min, max];
  }

  private atom(): Node {
    const char = this.peek();
    this.pos += 1;
    switch (char) {
      case "(":
        return this.group();
      case "[":
        return { kind: "set", ranges: this.characterClass() };
      case ".":
        return { kind: "set", ranges: NOT_NEWLINE };
      case "^":
        return { kind: "assert", which: "begin" };
      case "$":
        return { kind: "assert", which: "end" };
      case "\\":
        return this.escape(false);
      case "*":
      case "+":
      case "?":
        throw new PatternError(`missing argument to repetition operator "${char}"`);
      default: {
        const code = (char ?? "").codePointAt(0) ?? 0;
        return { kind: "set", ranges: [[code, code]] };
      }
    }
  }

  private group(): Node {
    if (this.peek() === "?") {
      const head = this.chars.slice(this.pos, this.pos + 3).join("");
      if (head.startsWith("?:")) {
        this.pos += 2;
      } else if (head.startsWith("?=") || head.startsWith("?!") || head === "?<=" || head === "?<!") {
        throw new PatternError("lookarounds are not supported (RE2 has none)");
      } else if (head.startsWith("?P<") || head.startsWith("?<")) {
        const close = this.chars.indexOf(">", this.pos);
        const name = this.chars.slice(this.pos + (head.startsWith("?P<") ? 3 : 2), close).join("");
        if (close < 0 || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new PatternError("invalid named group");
        this.pos = close + 1;
      } else {
        throw new PatternError("inline flags and other (?…) groups are not supported; only (…) and (?:…)");
      }
    }
    const node = this.alternation();
    if (this.peek() !== ")") throw new PatternError('missing closing ")"');
    this.pos += 1;
    return node;
  }

  /** An escape after `\`; inside a class, assertions make no sense and are refused. */
  private escape(inClass: boolean): Node {
    const char = this.peek();
    if (char === undefined) throw new PatternError("trailing backslash");
    this.pos += 1;
    const perl = PERL_CLASSES[char];
    if (perl) return { kind: "set", ranges: perl };
    const control = CONTROL_ESCAPES[char];
    if (control !== undefined) return { kind: "set", ranges: [[control, control]] };
    if (!inClass) {
      if (char === "b") return { kind: "assert", which: "word" };
      if (char === "B") return { kind: "assert", which: "not-word" };
      if (char === "A") return { kind: "assert", which: "begin" };
      if (char === "z") return { kind: "assert", which: "end" };
    }
    if (/[1-9]/.test(char)) throw new PatternError("backreferences are not supported (RE2 has none)");
    if (char === "x") {
      const hex = this.hexEscape();
      return { kind: "set", ranges: [[hex, hex]] };
    }
    if (/[A-Za-z0-9]/.test(char)) throw new PatternError(`escape \\${char} is not supported`);
    const code = char.codePointAt(0) ?? 0;
    return { kind: "set", ranges: [[code, code]] };
  }

  private hexEscape(): number {
    const rest = this.chars.slice(this.pos, this.pos + 10).join("");
    const match = /^\{([0-9A-Fa-f]{1,6})\}/.exec(rest) ?? /^([0-9A-Fa-f]{2})/.exec(rest);
    const value = match ? Number.parseInt(match[1] ?? "", 16) : Number.NaN;
    if (!match || value > MAX_CODE_POINT) throw new PatternError("bad \\x escape");
    this.pos += match[0].length;
    return value;
  }

  private characterClass(): Range[] {
    const negated = this.peek() === "^";
    if (negated) this.pos += 1;
    const ranges: Range[] = [];
    let first = true;
    while (this.peek() !== "]" || first) {
      if (this.peek() === undefined) throw new PatternError('missing closing "]"');
      if (this.peek() === "[" && this.peek(1) === ":") throw new PatternError("POSIX classes like [[:alpha:]] are not supported; write the range");
      const low = this.classAtom();
      first = false;
      if (low.length === 1 && low[0]?.[0] === low[0]?.[1] && this.peek() === "-" && this.peek(1) !== "]" && this.peek(1) !== undefined) {
        this.pos += 1;
        const high = this.classAtom();
        const from = low[0]?.[0] ?? 0;
        const to = high.length === 1 && high[0]?.[0] === high[0]?.[1] ? (high[0]?.[0] ?? 0) : -1;
        if (to < from) throw new PatternError("bad character class range");
        ranges.push([from, to]);
      } else {
        ranges.push(...low);
      }
    }
    this.pos += 1;
    return negated ? complement(ranges) : ranges;
  }

  private classAtom(): Range[] {
    const char = this.peek();
    this.pos += 1;
    if (char === "\\") {
      const node = this.escape(true);
      return node.kind === "set" ? node.ranges : [];
    }
    const code = (char ?? "").codePointAt(0) ?? 0;
    return [[code, code]];
  }
}
