import { AlmanacError } from "../../errors.ts";
import { ALL_VERSIONS } from "../versions.ts";

/** A filter compiled to a SQL boolean expression over the `documents` table with `?` placeholders. */
export interface CompiledFilter {
  sql: string;
  params: (string | number)[];
  /** The filter restricts `version`: it, not the current-version default, decides which versions are seen. */
  namesVersion?: true;
  /** What every page the filter admits has in common, for an index that cannot run the SQL (the vector index's filter). */
  constraints: PageConstraints;
}

/**
 * Data sources and versions that every page a filter admits satisfies: a
 * loosening of the filter (a page it admits always meets them, a page that
 * meets them may still be refused), so an index that applies only these
 * never loses a page the filter would keep. Absent fields constrain nothing.
 */
export interface PageConstraints {
  /** The page's data source is one of these. */
  dataSources?: readonly string[];
  /** The page's data source is none of these. */
  excludedDataSources?: readonly string[];
  /** The page's version label is one of these ('' for unversioned pages). */
  versions?: readonly string[];
}

/** A parsed part of a filter: its SQL and the constraints it implies. */
interface Part {
  sql: string;
  constraints: PageConstraints;
}

const intersect = (a: readonly string[] | undefined, b: readonly string[] | undefined) => (a && b ? a.filter((value) => b.includes(value)) : (a ?? b));
const unite = (lists: readonly (readonly string[] | undefined)[]) => (lists.every((list) => list !== undefined) ? [...new Set(lists.flat() as string[])] : undefined);

/** Both parts hold: each constraint narrows. */
function both(a: PageConstraints, b: PageConstraints): PageConstraints {
  return withoutEmpty({
    dataSources: intersect(a.dataSources, b.dataSources),
    excludedDataSources: a.excludedDataSources || b.excludedDataSources ? [...new Set([...(a.excludedDataSources ?? []), ...(b.excludedDataSources ?? [])])] : undefined,
    versions: intersect(a.versions, b.versions),
  });
}

/** One of the parts holds: a list holds only when every part has it (their union); an exclusion only when every part makes it. */
function either(parts: readonly PageConstraints[]): PageConstraints {
  const excluded = parts.map((part) => part.excludedDataSources ?? []).reduce((a, b) => a.filter((value) => b.includes(value)));
  return withoutEmpty({
    dataSources: unite(parts.map((part) => part.dataSources)),
    excludedDataSources: excluded.length > 0 ? excluded : undefined,
    versions: unite(parts.map((part) => part.versions)),
  });
}

function withoutEmpty(constraints: PageConstraints): PageConstraints {
  return Object.fromEntries(Object.entries(constraints).filter(([, value]) => value !== undefined)) as PageConstraints;
}

/** SPEC 2.4 caps filters at 500 characters. */
export const MAX_FILTER_LENGTH = 500;
/** Bounds recursion (and SQLite's expression depth) for inputs like `NOT NOT NOT …` or `((((…`. */
const MAX_DEPTH = 32;
/** D1 binds at most 100 parameters per query; half is left for the caller's own parameters. */
const MAX_RESTRICTIONS = 50;

type FieldType = "STRING" | "TIMESTAMP" | "INTEGER";

// A Map, not an object literal, so names like "constructor" are not mistaken for fields.
const FIELDS = new Map<string, FieldType>([
  ["data_source", "STRING"],
  ["uri", "STRING"],
  ["update_time", "TIMESTAMP"],
  ["content_length_bytes", "INTEGER"],
  ["version", "STRING"],
]);
const FIELD_LIST = [...FIELDS.keys()].join(", ");
// SPEC 2.4 lists exactly these for TIMESTAMP and INTEGER fields ("!=" only for STRING).
const ORDERED = ["=", "<", "<=", ">", ">="];
const OPERATORS: Record<FieldType, { allowed: string[]; hint: string }> = {
  STRING: { allowed: ["=", "!="], hint: "= or !=" },
  TIMESTAMP: { allowed: ORDERED, hint: "=, <, <=, > or >=" },
  INTEGER: { allowed: ORDERED, hint: "=, <, <=, > or >=" },
};
const STRING_EXAMPLES: Record<string, string> = {
  data_source: '"dart.dev"',
  uri: '"https://dart.dev/language/async"',
  version: '"v2" (or "*" for every version)',
};
const TIMESTAMP_EXAMPLE = '"2026-01-01T00:00:00Z"';

/**
 * Parses an AIP-160 filter (SPEC 2.4 subset) and compiles it over the
 * `documents` table aliased `d`; empty/whitespace-only → null. Throws
 * AlmanacError("INVALID_ARGUMENT", …) on anything unsupported.
 */
export function compileFilter(filter: string | undefined): CompiledFilter | null {
  if (filter === undefined) return null;
  if (filter.length > MAX_FILTER_LENGTH) {
    throw new AlmanacError("INVALID_ARGUMENT", `filter must be at most ${MAX_FILTER_LENGTH} characters (got ${filter.length})`);
  }
  const tokens = tokenize(filter);
  if (tokens.length === 0) return null;
  const parser = new Parser(tokens, filter.length + 1);
  const { sql, constraints } = parser.parseFilter();
  return parser.namesVersion ? { sql, params: parser.params, namesVersion: true, constraints } : { sql, params: parser.params, constraints };
}

type TokenKind = "word" | "string" | "op" | "(" | ")" | "-";
interface Token {
  kind: TokenKind | "end";
  /** The source text, quotes included for strings. */
  text: string;
  /** For strings, the unescaped contents; otherwise the same as `text`. */
  value: string;
  /** 1-based offset of the first character. */
  pos: number;
}

function invalid(message: string): AlmanacError {
  return new AlmanacError("INVALID_ARGUMENT", `filter: ${message}`);
}

const WORD_END = /[\s()"'=<>!:]/;

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src.charAt(i);
    const pos = i + 1;
    if (/\s/.test(c)) {
      i++;
    } else if (c === "(" || c === ")" || c === "-") {
      // "-" only negates at the start of a token; inside a word (a-b) it is part of the word.
      tokens.push({ kind: c, text: c, value: c, pos });
      i++;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      let value = "";
      for (;;) {
        if (j >= src.length) throw invalid(`unterminated string starting at position ${pos}; close it with ${c}`);
        const d = src.charAt(j);
        if (d === c) break;
        if (d === "\\") {
          if (j + 1 >= src.length) throw invalid(`unterminated string starting at position ${pos}; close it with ${c}`);
          const e = src.charAt(j + 1);
          if (e !== '"' && e !== "'" && e !== "\\") {
            throw invalid(`unsupported escape "\\${e}" at position ${j + 1}; only \\", \\' and \\\\ are allowed`);
          }
          value += e;
          j += 2;
        } else {
          value += d;
          j++;
        }
      }
      tokens.push({ kind: "string", text: src.slice(i, j + 1), value, pos });
      i = j + 1;
    } else {
      const op = /^(?:<=|>=|!=|=|<|>|:)/.exec(src.slice(i, i + 2))?.[0];
      if (op !== undefined) {
        tokens.push({ kind: "op", text: op, value: op, pos });
        i += op.length;
      } else if (c === "!") {
        throw invalid(`unexpected "!" at position ${pos}; use != to compare or NOT to negate`);
      } else {
        let j = i;
        while (j < src.length && !WORD_END.test(src.charAt(j))) j++;
        const word = src.slice(i, j);
        tokens.push({ kind: "word", text: word, value: word, pos });
        i = j;
      }
    }
  }
  return tokens;
}

function isKeyword(t: Token, keyword: "AND" | "OR" | "NOT"): boolean {
  return t.kind === "word" && t.text === keyword;
}

function describe(t: Token): string {
  return t.kind === "string" ? `string ${t.text}` : `"${t.text}"`;
}

function combine(parts: Part[], op: "AND" | "OR"): Part {
  if (parts.length === 1) return parts[0] as Part;
  const sql = `(${parts.map((part) => part.sql).join(` ${op} `)})`;
  const constraints = op === "AND" ? parts.map((part) => part.constraints).reduce(both) : either(parts.map((part) => part.constraints));
  return { sql, constraints };
}

/**
 * Recursive descent over AIP-160's grammar, where OR binds tighter than AND:
 *   expression = sequence {AND sequence}; sequence = factor {factor};
 *   factor = term {OR term}; term = [NOT | -] simple; simple = restriction | "(" expression ")".
 */
class Parser {
  readonly params: (string | number)[] = [];
  namesVersion = false;
  private next = 0;
  private previous: Token | undefined;
  private readonly end: Token;
  private readonly tokens: Token[];

  constructor(tokens: Token[], endPos: number) {
    this.tokens = tokens;
    this.end = { kind: "end", text: "", value: "", pos: endPos };
  }

  parseFilter(): Part {
    const part = this.expression(0);
    const t = this.peek();
    if (t.kind !== "end") throw invalid(`unbalanced parenthesis at position ${t.pos}; no "(" opens it`);
    return part;
  }

  private peek(): Token {
    return this.tokens[this.next] ?? this.end;
  }

  private take(): Token {
    const t = this.peek();
    if (t.kind !== "end") {
      this.next++;
      this.previous = t;
    }
    return t;
  }

  private endOfInput(): AlmanacError {
    return invalid(`unexpected end of input after "${this.previous?.text ?? ""}"`);
  }

  private expression(depth: number): Part {
    const parts = [this.sequence(depth)];
    while (isKeyword(this.peek(), "AND")) {
      this.take();
      parts.push(this.sequence(depth));
    }
    return combine(parts, "AND");
  }

  private sequence(depth: number): Part {
    const parts = [this.factor(depth)];
    for (;;) {
      const t = this.peek();
      if (t.kind === "end" || t.kind === ")" || isKeyword(t, "AND")) break;
      if (t.kind === "op" || t.kind === "string") {
        throw invalid(`unexpected ${describe(t)} at position ${t.pos}; expected AND, OR or another restriction`);
      }
      parts.push(this.factor(depth)); // juxtaposed terms are an implicit AND
    }
    return combine(parts, "AND");
  }

  private factor(depth: number): Part {
    const parts = [this.term(depth)];
    while (isKeyword(this.peek(), "OR")) {
      this.take();
      parts.push(this.term(depth));
    }
    return combine(parts, "OR");
  }

  private term(depth: number): Part {
    const t = this.peek();
    if (t.kind === "-" || isKeyword(t, "NOT")) {
      this.take();
      this.checkDepth(depth + 1, t);
      // A negation implies nothing an index could use (NOT data_source = "a" is any other source, or none).
      return { sql: `(NOT ${this.term(depth + 1).sql})`, constraints: {} };
    }
    return this.simple(depth);
  }

  private simple(depth: number): Part {
    const t = this.take();
    if (t.kind === "end") throw this.endOfInput();
    if (t.kind === "(") {
      this.checkDepth(depth + 1, t);
      if (this.peek().kind === ")") throw invalid(`empty parentheses at position ${t.pos}`);
      const inner = this.expression(depth + 1);
      if (this.take().kind !== ")") throw invalid(`unbalanced parenthesis at position ${t.pos}; close it with ")"`);
      return inner;
    }
    if (t.kind === "word" && /^(and|or|not)$/i.test(t.text) && t.text !== t.text.toUpperCase()) {
      throw invalid(`keywords are upper-case: write "${t.text.toUpperCase()}" instead of "${t.text}" at position ${t.pos}`);
    }
    if (t.kind !== "word" || t.text === "AND" || t.text === "OR") {
      throw invalid(`unexpected ${describe(t)} at position ${t.pos}; expected a restriction such as uri = "https://…"`);
    }
    return this.restriction(t);
  }

  private restriction(field: Token): Part {
    const type = FIELDS.get(field.text);
    if (type === undefined) {
      throw invalid(`unknown field "${field.text}" at position ${field.pos}; supported fields: ${FIELD_LIST}`);
    }
    const op = this.take();
    if (op.kind === "end") throw this.endOfInput();
    if (op.kind !== "op") {
      throw invalid(`expected an operator (=, !=, <, <=, >, >=) after "${field.text}" at position ${op.pos}`);
    }
    const { allowed, hint } = OPERATORS[type];
    if (!allowed.includes(op.text)) {
      throw invalid(`operator "${op.text}" is not supported for ${type} field "${field.text}" at position ${op.pos}; use ${hint}`);
    }
    const value = this.take();
    if (value.kind === "end") throw this.endOfInput();
    if (this.params.length >= MAX_RESTRICTIONS) {
      throw invalid(`too many restrictions (at most ${MAX_RESTRICTIONS}) at position ${field.pos}`);
    }
    const parsed = parseValue(type, field.text, value);
    if (field.text === "version") {
      this.namesVersion = true;
      if (parsed === ALL_VERSIONS) {
        if (op.text !== "=") throw invalid(`version != "${ALL_VERSIONS}" at position ${field.pos} matches nothing; write version = "${ALL_VERSIONS}" for every version`);
        return { sql: "(1)", constraints: {} };
      }
      // Unversioned pages have the label '': version = "" selects them, as their results show no version.
    }
    this.params.push(parsed);
    return { sql: `(d.${field.text} ${op.text} ?)`, constraints: constraintOf(field.text, op.text, parsed) };
  }

  private checkDepth(depth: number, at: Token): void {
    if (depth > MAX_DEPTH) throw invalid(`nesting deeper than ${MAX_DEPTH} levels at position ${at.pos}`);
  }
}

/** What one restriction says about data sources and versions; other fields, and ordering operators, say nothing. */
function constraintOf(field: string, op: string, value: string | number): PageConstraints {
  if (typeof value !== "string") return {};
  if (field === "data_source" && op === "=") return { dataSources: [value] };
  if (field === "data_source" && op === "!=") return { excludedDataSources: [value] };
  if (field === "version" && op === "=") return { versions: [value] };
  return {};
}

function parseValue(type: FieldType, field: string, v: Token): string | number {
  if (type === "STRING") {
    if (v.kind !== "string") {
      throw invalid(`expected a quoted string for ${field} at position ${v.pos}, e.g. ${STRING_EXAMPLES[field] ?? '"…"'}`);
    }
    return v.value;
  }
  if (type === "TIMESTAMP") {
    const iso = v.kind === "string" ? toIsoTimestamp(v.value) : null;
    if (iso === null) {
      throw invalid(`expected a quoted RFC 3339 timestamp for ${field} at position ${v.pos}, e.g. ${TIMESTAMP_EXAMPLE}`);
    }
    return iso;
  }
  const n = v.kind === "word" && /^\d+$/.test(v.text) ? Number(v.text) : NaN;
  if (!Number.isSafeInteger(n)) {
    throw invalid(`expected a non-negative integer for ${field} at position ${v.pos}, e.g. 1024`);
  }
  return n;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/**
 * Normalises an RFC 3339 timestamp to the `toISOString()` form stored in `update_time`, so
 * text comparison in SQL is time comparison. Sub-millisecond digits are truncated. Built from
 * parts rather than `new Date(string)`, whose parser accepts non-RFC forms and rolls 02-30 over.
 */
function toIsoTimestamp(s: string): string | null {
  const m = RFC3339.exec(s);
  if (m === null) return null;
  const part = (k: number): number => Number(m[k] ?? 0);
  const [year, month, day, hour, minute, second] = [part(1), part(2), part(3), part(4), part(5), part(6)];
  const [offsetHours, offsetMinutes] = [part(9), part(10)];
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const daysInMonth = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  // Leap seconds (:60) are valid RFC 3339 but JavaScript dates cannot represent them.
  if (day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) return null;
  if (offsetHours > 23 || offsetMinutes > 59) return null;
  const millis = Number(((m[7] ?? "") + "000").slice(0, 3));
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day); // unlike Date.UTC, keeps years 0–99 as written
  date.setUTCHours(hour, minute, second, millis);
  const sign = m[8] === "-" ? -1 : 1;
  const utc = new Date(date.getTime() - sign * (offsetHours * 60 + offsetMinutes) * 60_000);
  // An offset can push a time written in year 9999 (or 0000) past the four-digit years, where
  // toISOString writes "+010000-…" or "-000001-…", which sort wrongly as text. Every stored time
  // lies inside those years, so the nearest edge compares the same way.
  if (utc.getUTCFullYear() > 9999) return "9999-12-31T23:59:59.999Z";
  if (utc.getUTCFullYear() < 0) return "0000-01-01T00:00:00.000Z";
  return utc.toISOString();
}
