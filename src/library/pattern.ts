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

/** Longer patterns are refused; the real library's longest is ~70 characters. */
export const MAX_PATTERN_LENGTH = 256;
/** RE2's own limit on `{n,m}` counts. */
const MAX_REPEAT = 1000;
/** Bounds the compiled program, so the matcher's per-character work is bounded too. */
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

/** Parses and compiles an RE2 pattern, or throws PatternError saying why it is refused. */
export function compilePattern(source: string): SafePattern {
  if (source.length > MAX_PATTERN_LENGTH) {
    throw new PatternError(`pattern is longer than ${MAX_PATTERN_LENGTH} characters`);
  }
  const node = new Parser(source).parse();
  const program = compile(node);
  return { source, matches: (value) => run(program, value) };
}

// ---- syntax tree ------------------------------------------------------------

type Range = readonly [number, number];
type Assertion = "begin" | "end" | "word" | "not-word";
type Node =
  | { kind: "empty" }
  | { kind: "set"; ranges: Range[] }
  | { kind: "concat"; items: Node[] }
  | { kind: "alt"; options: Node[] }
  | { kind: "repeat"; node: Node; min: number; max: number }
  | { kind: "assert"; which: Assertion };

const MAX_CODE_POINT = 0x10ffff;
const DIGIT: Range[] = [[0x30, 0x39]];
const WORD: Range[] = [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]];
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

// ---- program and matcher ------------------------------------------------------

type Instruction =
  | { op: "set"; ranges: Range[] }
  | { op: "split"; x: number; y: number }
  | { op: "jmp"; x: number }
  | { op: "assert"; which: Assertion }
  | { op: "match" };

function compile(node: Node): Instruction[] {
  const program: Instruction[] = [];
  const emit = (instruction: Instruction): number => {
    if (program.length >= MAX_PROGRAM_SIZE) throw new PatternError("pattern is too large once its repetitions are expanded");
    program.push(instruction);
    return program.length - 1;
  };
  const patch = (at: number, instruction: Instruction) => {
    program[at] = instruction;
  };
  const visit = (current: Node): void => {
    switch (current.kind) {
      case "empty":
        return;
      case "set":
        emit({ op: "set", ranges: current.ranges });
        return;
      case "assert":
        emit({ op: "assert", which: current.which });
        return;
      case "concat":
        current.items.forEach(visit);
        return;
      case "alt": {
        const jumps: number[] = [];
        current.options.forEach((option, index) => {
          if (index === current.options.length - 1) {
            visit(option);
            return;
          }
          const split = emit({ op: "jmp", x: -1 });
          visit(option);
          jumps.push(emit({ op: "jmp", x: -1 }));
          patch(split, { op: "split", x: split + 1, y: program.length });
        });
        for (const jump of jumps) patch(jump, { op: "jmp", x: program.length });
        return;
      }
      case "repeat": {
        for (let i = 0; i < current.min; i += 1) visit(current.node);
        if (current.max === Infinity) {
          const loop = emit({ op: "jmp", x: -1 });
          visit(current.node);
          emit({ op: "jmp", x: loop });
          patch(loop, { op: "split", x: loop + 1, y: program.length });
          return;
        }
        const splits: number[] = [];
        for (let i = current.min; i < current.max; i += 1) {
          splits.push(emit({ op: "jmp", x: -1 }));
          visit(current.node);
        }
        for (const split of splits) patch(split, { op: "split", x: split + 1, y: program.length });
        return;
      }
    }
  };
  visit(node);
  emit({ op: "match" });
  return program;
}

function inRanges(ranges: readonly Range[], code: number): boolean {
  return ranges.some(([lo, hi]) => code >= lo && code <= hi);
}

function isWordChar(code: number | undefined): boolean {
  return code !== undefined && inRanges(WORD, code);
}

/** Thompson NFA simulation over code points: O(value length × program size), no backtracking. */
function run(program: readonly Instruction[], value: string): boolean {
  const input = Array.from(value, (char) => char.codePointAt(0) ?? 0);
  const seen = new Int32Array(program.length).fill(-1);
  let current: number[] = [];
  let generation = 0;

  const addThread = (list: number[], start: number, position: number) => {
    const stack = [start];
    while (stack.length > 0) {
      const pc = stack.pop() as number;
      if (seen[pc] === generation) continue;
      seen[pc] = generation;
      const instruction = program[pc];
      if (!instruction) continue;
      switch (instruction.op) {
        case "jmp":
          stack.push(instruction.x);
          break;
        case "split":
          stack.push(instruction.y, instruction.x);
          break;
        case "assert":
          if (holds(instruction.which, input, position)) stack.push(pc + 1);
          break;
        default:
          list.push(pc);
      }
    }
  };

  addThread(current, 0, 0);
  for (let position = 0; position < input.length; position += 1) {
    generation += 1;
    const code = input[position] as number;
    const next: number[] = [];
    for (const pc of current) {
      const instruction = program[pc];
      if (instruction?.op === "set" && inRanges(instruction.ranges, code)) addThread(next, pc + 1, position + 1);
    }
    if (next.length === 0) return false;
    current = next;
  }
  return current.some((pc) => program[pc]?.op === "match");
}

function holds(which: Assertion, input: readonly number[], position: number): boolean {
  switch (which) {
    case "begin":
      return position === 0;
    case "end":
      return position === input.length;
    case "word":
      return isWordChar(input[position - 1]) !== isWordChar(input[position]);
    case "not-word":
      return isWordChar(input[position - 1]) === isWordChar(input[position]);
  }
}
