import type { EntryMetadata, LibraryEntry, ParamDeclaration } from "./entry.ts";
import { quoted } from "../text/quote.ts";
import { PatternError, compilePattern, type SafePattern } from "./pattern.ts";

/** Values of `identifier` params are inserted verbatim, so they may only be plain names. */
const IDENTIFIER_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]*$/;
/** A placeholder as StackQL writes it: `{{name}}`, no spaces. */
export const PLACEHOLDER_PATTERN = /^\{\{([A-Za-z0-9_]+)\}\}$/;
/** Anything that looks like a placeholder, well formed or not (`{{ name }}`). */
export const ANY_PLACEHOLDER = /\{\{\s*([^}]*?)\s*\}\}/g;
/** Longer values are refused: no real parameter needs more, and it bounds the work per render. */
export const MAX_PARAM_VALUE_LENGTH = 16_384;

const NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
/**
 * Characters refused in string and enum values. StackQL's SQL parser is
 * vitess-derived and reads `\` as an escape inside string literals, so
 * `x\' OR 1=1 --` would close the literal that doubling `'` keeps closed;
 * control characters (other than tab, LF, CR) have no place in a value and
 * are handled inconsistently by SQL lexers.
 */
const UNSAFE_LITERAL_CHARACTERS = /[\\\x00-\x08\x0B\x0C\x0E-\x1F\x7F]/;

/** What rendering produced; `sql` is present exactly when `valid`. */
interface RenderResult {
  valid: boolean;
  sql?: string;
  missing_params: string[];
  unknown_params: string[];
  errors: string[];
}

/** The SQL text a checked value becomes, or why the value is refused. */
type CheckedValue = { literal: string } | { error: string };

function shown(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}

/** Doubles `'` so a value stays inside the quoted literal it is written into. */
function quoteEscaped(value: string): string {
  return value.replaceAll("'", "''");
}

/**
 * Checks one value against its declaration and returns the text to insert.
 * Ingestion runs it on every `default` and `example`, rendering on every value,
 * so a library can never hold a value its own renderer would refuse.
 */
export function checkParamValue(param: ParamDeclaration, value: unknown): CheckedValue {
  if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") {
    return { error: `param "${param.name}" must be a string, number or boolean` };
  }
  const text = String(value);
  if (text.length > MAX_PARAM_VALUE_LENGTH) {
    return { error: `param "${param.name}" is longer than ${MAX_PARAM_VALUE_LENGTH} characters` };
  }
  switch (param.type) {
    case "number":
      return NUMBER_TEXT.test(text) && Number.isFinite(Number(text))
        ? { literal: text }
        : { error: `param "${param.name}" must be a finite number, got ${shown(text)}` };
    case "boolean": {
      const lower = text.toLowerCase();
      return lower === "true" || lower === "false" ? { literal: lower } : { error: `param "${param.name}" must be true or false, got ${shown(text)}` };
    }
    case "identifier":
      return IDENTIFIER_PATTERN.test(text)
        ? { literal: text }
        : { error: `param "${param.name}" must be an identifier matching ${IDENTIFIER_PATTERN.source}, got ${shown(text)}` };
    case "enum":
      if (UNSAFE_LITERAL_CHARACTERS.test(text)) return unsafeLiteral(param);
      return (param.enum ?? []).includes(text)
        ? { literal: quoteEscaped(text) }
        : { error: `param "${param.name}" must be one of ${(param.enum ?? []).join(", ")}, got ${shown(text)}` };
    case "string":
      if (UNSAFE_LITERAL_CHARACTERS.test(text)) return unsafeLiteral(param);
      if (param.pattern !== undefined && !matchesPattern(param.pattern, text)) {
        return { error: `param "${param.name}" must match pattern ${param.pattern}, got ${shown(text)}` };
      }
      return { literal: quoteEscaped(text) };
  }
}

function unsafeLiteral(param: ParamDeclaration): CheckedValue {
  return { error: `param "${param.name}" must not contain a backslash or control characters` };
}

/**
 * Compiled patterns by source, so a pattern is parsed and compiled once per
 * isolate, not once per value. An isolate lives across many requests and
 * libraries can be re-ingested with new patterns, so the map is bounded:
 * when full it is cleared, which is simpler than LRU and only costs a
 * recompile of the patterns still in use.
 */
const compiledPatterns = new Map<string, SafePattern>();
/** Far more distinct patterns than one render uses. */
const MAX_COMPILED_PATTERNS = 256;

function compiled(pattern: string): SafePattern {
  let safe = compiledPatterns.get(pattern);
  if (safe === undefined) {
    safe = compilePattern(pattern);
    if (compiledPatterns.size >= MAX_COMPILED_PATTERNS) compiledPatterns.clear();
    compiledPatterns.set(pattern, safe);
  }
  return safe;
}

function matchesPattern(pattern: string, text: string): boolean {
  try {
    return compiled(pattern).matches(text);
  } catch (error) {
    // Ingestion refuses such patterns; a stored one that fails anyway refuses every value.
    if (error instanceof PatternError) return false;
    throw error;
  }
}

/** Unknown params listed by name, at most this many. */
const MAX_LISTED_KEYS = 20;

/**
 * Renders an entry's template with caller values (SPEC 3.2): unknown keys,
 * then defaults and missing required params, then type checks; any error
 * means no SQL. Substitution is a single pass over the template, so a value
 * that itself contains `{{…}}` is inserted as text, never expanded.
 *
 * @example renderTemplate(entry, { region: "us-east-1" }).sql
 */
export function renderTemplate(entry: Pick<EntryMetadata, "params"> & Pick<LibraryEntry, "template">, values: Readonly<Record<string, unknown>>): RenderResult {
  const declared = new Map(entry.params.map((param) => [param.name, param]));
  const errors: string[] = [];

  const unknownKeys = Object.keys(values).filter((key) => !declared.has(key));
  // Keys are what a caller sent: each is quoted, and a list of thousands is cut (with how many more).
  const unknown = unknownKeys.slice(0, MAX_LISTED_KEYS).map((key) => quoted(key));
  const more = unknownKeys.length > unknown.length ? ` and ${unknownKeys.length - unknown.length} more` : "";
  if (unknown.length > 0) errors.push(`unknown params rejected: ${unknown.join(", ")}${more}`);

  const supplied = new Map<string, unknown>();
  const missing: string[] = [];
  for (const param of entry.params) {
    const value = Object.hasOwn(values, param.name) ? values[param.name] : undefined;
    if (value !== undefined && value !== null) supplied.set(param.name, value);
    else if (param.default !== undefined) supplied.set(param.name, param.default);
    else if (param.required) missing.push(param.name);
  }
  if (missing.length > 0) errors.push(`missing required params: ${missing.join(", ")}`);

  const literals = new Map<string, string>();
  for (const [name, value] of supplied) {
    const checked = checkParamValue(declared.get(name) as ParamDeclaration, value);
    if ("error" in checked) errors.push(checked.error);
    else literals.set(name, checked.literal);
  }

  const result = { missing_params: missing, unknown_params: unknown, errors };
  if (errors.length > 0) return { valid: false, ...result };

  const unresolved = new Set<string>();
  const sql = entry.template.replace(ANY_PLACEHOLDER, (placeholder) => {
    const name = PLACEHOLDER_PATTERN.exec(placeholder)?.[1];
    const literal = name === undefined ? undefined : literals.get(name);
    if (literal === undefined) {
      unresolved.add(placeholder);
      return placeholder;
    }
    return literal;
  });
  if (unresolved.size > 0) {
    return { valid: false, ...result, errors: [...unresolved].map((placeholder) => `unresolved placeholder ${placeholder} in template`) };
  }
  return { valid: true, sql, ...result };
}
