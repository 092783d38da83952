// A compiled pattern program and its Thompson NFA simulation: every input
// character advances all live threads at once, so time is linear in the
// input and never backtracks (RE2's approach).
import { PatternError, WORD, type Assertion, type Node, type Range } from "./pattern-parser.ts";

/** Bounds the compiled program, so the matcher's per-character work is bounded too. */
const MAX_PROGRAM_SIZE = 5000;

/** One step of a program: match a character set, fork, jump, assert, or accept. */
export type Instruction =
  | { op: "set"; ranges: Range[] }
  | { op: "split"; x: number; y: number }
  | { op: "jmp"; x: number }
  | { op: "assert"; which: Assertion }
  | { op: "match" };

/** Compiles a syntax tree to a program, refusing programs above MAX_PROGRAM_SIZE. */
export function compileProgram(node: Node): Instruction[] {
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

/** Whether `program` matches the whole of `value`, in O(value length × program size) steps. */
export function runProgram(program: readonly Instruction[], value: string): boolean {
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
