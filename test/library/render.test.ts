// Rendering a template with caller values: SPEC 3.2's order of checks, its
// exact error strings, and the guarantee that no value changes the SQL's shape.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ParamDeclaration } from "../../src/library/entry.ts";
import { MAX_PARAM_VALUE_LENGTH, renderTemplate } from "../../src/library/render.ts";
import { defaultLibraryFiles, preparedStackqlLibrary } from "../support/library-fixtures.ts";
import { prepareLibrary } from "../../src/library/parse-entry.ts";

const params: ParamDeclaration[] = [
  { name: "name", type: "string", required: true, description: "A free text value", example: "x" },
  { name: "state", type: "enum", required: false, enum: ["running", "it's"], default: "running", description: "Instance state" },
  { name: "days", type: "number", required: false, default: 30, description: "Age in days" },
  { name: "on", type: "boolean", required: false, default: false, description: "A switch" },
  { name: "region", type: "identifier", required: true, description: "A region", example: "us-east-1" },
  { name: "code", type: "string", required: false, pattern: "^[A-Z]{2}$", default: "AU", description: "Country code" },
];
const template = "SELECT a FROM t WHERE name = '{{name}}' AND state = '{{state}}' AND days > {{days}} AND on = {{on}} AND region = {{region}} AND code = '{{code}}';";
const entry = { params, template };

/**
 * The string literals of `sql` as a vitess-derived lexer (StackQL's) reads
 * them: `\` escapes the next character and `''` is a quote. Null when a
 * literal is left open.
 */
function vitessStringLiterals(sql: string): string[] | null {
  const literals: string[] = [];
  let current: string | null = null;
  for (let i = 0; i < sql.length; i += 1) {
    const char = sql[i] ?? "";
    if (current === null) {
      if (char === "'") current = "";
    } else if (char === "\\") {
      current += sql[i + 1] ?? "";
      i += 1;
    } else if (char === "'" && sql[i + 1] === "'") {
      current += "'";
      i += 1;
    } else if (char === "'") {
      literals.push(current);
      current = null;
    } else {
      current += char;
    }
  }
  return current === null ? literals : null;
}

describe("renderTemplate", () => {
  it("substitutes every placeholder, filling defaults", () => {
    expect(renderTemplate(entry, { name: "web", region: "us-east-1" })).toEqual({
      valid: true,
      sql: "SELECT a FROM t WHERE name = 'web' AND state = 'running' AND days > 30 AND on = false AND region = us-east-1 AND code = 'AU';",
      missing_params: [],
      unknown_params: [],
      errors: [],
    });
  });

  it("rejects unknown keys and reports missing required params, in that order, without SQL", () => {
    const result = renderTemplate(entry, { bucket: "x", zone: "y" });
    expect(result).toEqual({
      valid: false,
      missing_params: ["name", "region"],
      unknown_params: ["bucket", "zone"],
      errors: ["unknown params rejected: bucket, zone", "missing required params: name, region"],
    });
  });

  it("doubles quotes in string and enum values", () => {
    const result = renderTemplate(entry, { name: "O'Brien'; DROP TABLE t; --", state: "it's", region: "r" });
    expect(result.sql).toContain("name = 'O''Brien''; DROP TABLE t; --' AND state = 'it''s'");
  });

  it.each([
    [{ days: "abc" }, 'param "days" must be a finite number, got "abc"'],
    [{ days: "1e999" }, 'param "days" must be a finite number, got "1e999"'],
    [{ days: "" }, 'param "days" must be a finite number, got ""'],
    [{ on: "yes" }, 'param "on" must be true or false, got "yes"'],
    [{ region: "us east 1" }, 'param "region" must be an identifier matching ^[A-Za-z_][A-Za-z0-9_-]*$, got "us east 1"'],
    [{ region: "x;DROP" }, 'param "region" must be an identifier matching ^[A-Za-z_][A-Za-z0-9_-]*$, got "x;DROP"'],
    [{ state: "stopped" }, `param "state" must be one of running, it's, got "stopped"`],
    [{ code: "aus" }, 'param "code" must match pattern ^[A-Z]{2}$, got "aus"'],
    [{ name: "x\\' OR 1=1 --" }, 'param "name" must not contain a backslash or control characters'],
    [{ name: "a\u0000b" }, 'param "name" must not contain a backslash or control characters'],
    [{ state: "running\u001a" }, 'param "state" must not contain a backslash or control characters'],
    [{ name: { nested: true } }, 'param "name" must be a string, number or boolean'],
    [{ name: "x".repeat(20_000) }, 'param "name" is longer than 16384 characters'],
  ])("refuses %j", (values, error) => {
    const result = renderTemplate(entry, { name: "web", region: "r", ...values });
    expect(result.errors).toEqual([error]);
    expect(result.valid).toBe(false);
    expect(result.sql).toBeUndefined();
  });

  it("refuses a backslash that would escape the closing quote in StackQL's vitess-derived parser", () => {
    const result = renderTemplate(entry, { name: "x\\' OR 1=1 --", region: "r" });
    expect(result).toMatchObject({ valid: false, errors: ['param "name" must not contain a backslash or control characters'] });
    expect(result.sql).toBeUndefined();
  });

  it("keeps tabs and line breaks in string values, refusing only other control characters", () => {
    expect(renderTemplate(entry, { name: "a\tb\r\nc", region: "r" }).sql).toContain("name = 'a\tb\r\nc'");
    expect(renderTemplate(entry, { name: "bell\u0007", region: "r" }).errors).toEqual(['param "name" must not contain a backslash or control characters']);
    expect(renderTemplate(entry, { name: "del\u007f", region: "r" }).errors).toEqual(['param "name" must not contain a backslash or control characters']);
  });

  it("accepts booleans in any case and numbers as JSON numbers", () => {
    expect(renderTemplate(entry, { name: "w", region: "r", on: "TRUE", days: 7.5 }).sql).toContain("days > 7.5 AND on = true");
  });

  it("reports a placeholder no value fills", () => {
    const optional: ParamDeclaration = { name: "limit", type: "number", required: false, description: "Row limit", example: 5 };
    expect(renderTemplate({ params: [optional], template: "SELECT 1 LIMIT {{limit}};" }, {}).errors).toEqual([
      "unresolved placeholder {{limit}} in template",
    ]);
    expect(renderTemplate({ params: [], template: "SELECT '{{ spaced }}';" }, {}).errors).toEqual(["unresolved placeholder {{ spaced }} in template"]);
  });

  it("inserts a value that looks like a placeholder as text, never expanding it", () => {
    expect(renderTemplate(entry, { name: "{{region}}", region: "r" }).sql).toContain("name = '{{region}}'");
  });

  it("never lets a value change the shape of the SQL: refused, or one string literal per quoted placeholder", () => {
    const literal = "'((?:[^']|'')*)'";
    const shape = new RegExp(
      `^SELECT a FROM t WHERE name = ${literal} AND state = ${literal} AND days > [+-]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][+-]?\\d+)? AND on = (?:true|false) AND region = [A-Za-z_][A-Za-z0-9_-]* AND code = ${literal};$`,
      "s",
    );
    const sqlMetacharacters = fc.string({ unit: fc.constantFrom("'", "\\", "a", " ", "-", ";", "\u0000", "\t", "\n", "\r", "\u001a", "\u007f") });
    const hostile = fc.oneof(
      fc.string(),
      fc.string({ unit: "binary" }),
      sqlMetacharacters,
      fc.constantFrom("'", "''", "' OR '1'='1", "1; DROP", "\\'", "x\\' OR 1=1 --", "\\", "\\\\'", "--", "{{name}}"),
      fc.double(),
      fc.boolean(),
    );
    const values = fc.record(
      {
        name: hostile,
        state: fc.oneof(fc.constantFrom("running", "it's"), hostile),
        days: fc.oneof(fc.double(), fc.integer(), hostile),
        on: fc.oneof(fc.boolean(), fc.constantFrom("TRUE", "False"), hostile),
        region: fc.oneof(fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_-]{0,12}$/), hostile),
        code: hostile,
      },
      { requiredKeys: ["name", "region"] },
    );
    // Values that pass validation (quotes included), so the shape check runs on many renders, not a lucky few.
    const acceptable = fc.record(
      {
        name: fc.string({ unit: fc.constantFrom("'", "a", " ", "-", ";", "é", "{", "}") }),
        state: fc.constantFrom("running", "it's"),
        days: fc.integer(),
        on: fc.boolean(),
        region: fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_-]{0,12}$/),
        code: fc.stringMatching(/^[A-Z]{2}$/),
      },
      { requiredKeys: ["name", "region"] },
    );
    let rendered = 0;
    fc.assert(
      fc.property(fc.oneof(values, acceptable), (supplied) => {
        const result = renderTemplate(entry, supplied);
        if (typeof supplied.name === "string" && /[\\\x00-\x08\x0B\x0C\x0E-\x1F\x7F]/.test(supplied.name)) {
          expect(result.errors).toContain('param "name" must not contain a backslash or control characters');
        }
        if (!result.valid) return;
        rendered += 1;
        const match = shape.exec(result.sql ?? "");
        expect(match, result.sql).not.toBeNull();
        expect(match?.[1]?.replaceAll("''", "'")).toBe(String(supplied.name));
        // Read as StackQL reads it, the SQL has exactly the three literals the template quotes, holding the values.
        expect(vitessStringLiterals(result.sql ?? ""), result.sql).toEqual([String(supplied.name), String(supplied.state ?? "running"), String(supplied.code ?? "AU")]);
      }),
      { numRuns: 2000 },
    );
    expect(rendered).toBeGreaterThan(500);
  });

  it("renders every real and default entry with the longest hostile values in bounded time", () => {
    const entries = [...preparedStackqlLibrary().entries, ...prepareLibrary(defaultLibraryFiles()).entries];
    const hostile = [`${"a".repeat(MAX_PARAM_VALUE_LENGTH - 1)}!`, `${"0".repeat(MAX_PARAM_VALUE_LENGTH)}`, `${"'".repeat(MAX_PARAM_VALUE_LENGTH)}`];
    // No clock here (speed belongs in benchmarks): a pattern that backtracked catastrophically would never
    // return, and the test timeout would fail the test instead.
    for (const entry of entries) {
      for (const value of hostile) {
        const result = renderTemplate(entry, Object.fromEntries(entry.params.map((param) => [param.name, value])));
        expect(typeof result.valid).toBe("boolean");
      }
    }
  });
});
