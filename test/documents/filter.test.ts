import { describe, it, expect } from "vitest";
import fc from "fast-check";
import { compileFilter } from "../../src/documents/search/filter.ts";
import { AlmanacError } from "../../src/errors.ts";

/** The message of the INVALID_ARGUMENT error `filter` is rejected with. */
function rejection(filter: string): string {
  try {
    compileFilter(filter);
  } catch (error) {
    expect(error).toBeInstanceOf(AlmanacError);
    expect((error as AlmanacError).status).toBe("INVALID_ARGUMENT");
    return (error as AlmanacError).message;
  }
  throw new Error(`expected ${JSON.stringify(filter)} to be rejected`);
}

describe("compileFilter: empty input", () => {
  it("returns null for no filter, an empty one or only whitespace", () => {
    expect(compileFilter(undefined)).toBeNull();
    expect(compileFilter("")).toBeNull();
    expect(compileFilter(" \t\n ")).toBeNull();
  });
});

describe("compileFilter: fields and operators", () => {
  it("matches data_source and uri exactly with = and !=", () => {
    expect(compileFilter('data_source = "dart.dev"')).toMatchObject({ sql: "(d.data_source = ?)", params: ["dart.dev"] });
    expect(compileFilter('uri != "https://dart.dev/a"')).toMatchObject({ sql: "(d.uri != ?)", params: ["https://dart.dev/a"] });
  });

  it("accepts operators without surrounding spaces", () => {
    expect(compileFilter('uri="x"')).toMatchObject({ sql: "(d.uri = ?)", params: ["x"] });
    expect(compileFilter("content_length_bytes>=10")).toMatchObject({ sql: "(d.content_length_bytes >= ?)", params: [10] });
  });

  it("unescapes \\\" and \\\\ in double-quoted strings and accepts single quotes", () => {
    expect(compileFilter('uri = "a\\"b\\\\c"')?.params).toEqual(['a"b\\c']);
    expect(compileFilter("uri = 'it\\'s \"quoted\"'")?.params).toEqual(['it\'s "quoted"']);
    expect(compileFilter('uri = ""')?.params).toEqual([""]);
  });

  it.each(["=", "<", "<=", ">", ">="])("compiles update_time %s", (op) => {
    expect(compileFilter(`update_time ${op} "2026-11-30T09:00:00Z"`)).toMatchObject({
      sql: `(d.update_time ${op} ?)`,
      params: ["2026-11-30T09:00:00.000Z"],
    });
  });

  it.each(["=", "<", "<=", ">", ">="])("compiles content_length_bytes %s as a number", (op) => {
    expect(compileFilter(`content_length_bytes ${op} 1024`)).toMatchObject({
      sql: `(d.content_length_bytes ${op} ?)`,
      params: [1024],
    });
  });

});

describe("compileFilter: timestamps", () => {
  it.each([
    ["2026-01-01T00:00:00Z", "2026-01-01T00:00:00.000Z"],
    ["2026-01-01T02:00:00+02:00", "2026-01-01T00:00:00.000Z"],
    ["2025-12-31T23:30:00-00:45", "2026-01-01T00:15:00.000Z"],
    ["2026-06-15T12:34:56.7Z", "2026-06-15T12:34:56.700Z"],
    ["2026-06-15T12:34:56.123456789+00:00", "2026-06-15T12:34:56.123Z"],
    ["2026-06-15t12:34:56z", "2026-06-15T12:34:56.000Z"],
    ["2024-02-29T00:00:00Z", "2024-02-29T00:00:00.000Z"],
    ["0099-01-01T00:00:00Z", "0099-01-01T00:00:00.000Z"],
    // An offset past the last (or first) four-digit year compares as that edge: "+010000-…" would sort before 2026.
    ["9999-12-31T23:59:59-23:59", "9999-12-31T23:59:59.999Z"],
    ["0000-01-01T00:00:00+00:01", "0000-01-01T00:00:00.000Z"],
  ])("normalises %s to %s", (input, stored) => {
    expect(compileFilter(`update_time >= "${input}"`)?.params).toEqual([stored]);
  });

  it.each([
    "2026-01-01",
    "2026-01-01 00:00:00Z",
    "2026-01-01T00:00:00",
    "2026-1-01T00:00:00Z",
    "2026-13-01T00:00:00Z",
    "2026-02-29T00:00:00Z",
    "2026-04-31T00:00:00Z",
    "2026-01-01T24:00:00Z",
    "2026-01-01T00:60:00Z",
    "2026-01-01T23:59:60Z",
    "2026-01-01T00:00:00+24:00",
    "2026-01-01T00:00:00+0200",
    "2026-01-01T00:00:00.Z",
    "yesterday",
  ])("rejects %s", (input) => {
    expect(rejection(`update_time > "${input}"`)).toBe(
      'filter: expected a quoted RFC 3339 timestamp for update_time at position 15, e.g. "2026-01-01T00:00:00Z"',
    );
  });

  it("rejects an unquoted timestamp", () => {
    expect(rejection("update_time > 2026-01-01T00:00:00Z")).toBe(
      'filter: expected a quoted RFC 3339 timestamp for update_time at position 15, e.g. "2026-01-01T00:00:00Z"',
    );
  });
});

describe("compileFilter: combinators and precedence", () => {
  it("joins AND terms", () => {
    expect(compileFilter('data_source = "dart.dev" AND content_length_bytes > 100')).toMatchObject({
      sql: "((d.data_source = ?) AND (d.content_length_bytes > ?))",
      params: ["dart.dev", 100],
    });
  });

  it("binds OR tighter than AND, as AIP-160 says: a AND b OR c is a AND (b OR c)", () => {
    expect(compileFilter('uri = "a" AND uri = "b" OR uri = "c"')).toMatchObject({
      sql: "((d.uri = ?) AND ((d.uri = ?) OR (d.uri = ?)))",
      params: ["a", "b", "c"],
    });
    expect(compileFilter('uri = "a" OR uri = "b" AND uri = "c"')?.sql).toBe(
      "(((d.uri = ?) OR (d.uri = ?)) AND (d.uri = ?))",
    );
  });

  it("flattens chains of the same combinator", () => {
    expect(compileFilter('uri = "a" OR uri = "b" OR uri = "c"')?.sql).toBe("((d.uri = ?) OR (d.uri = ?) OR (d.uri = ?))");
  });

  it("treats terms separated only by whitespace as an implicit AND", () => {
    expect(compileFilter('data_source = "dart.dev" content_length_bytes < 5')).toMatchObject({
      sql: "((d.data_source = ?) AND (d.content_length_bytes < ?))",
      params: ["dart.dev", 5],
    });
    expect(compileFilter('uri = "a" uri = "b" OR uri = "c"')?.sql).toBe("((d.uri = ?) AND ((d.uri = ?) OR (d.uri = ?)))");
  });

  it("negates with NOT and with a leading -", () => {
    expect(compileFilter('NOT uri = "a"')).toMatchObject({ sql: "(NOT (d.uri = ?))", params: ["a"] });
    expect(compileFilter('-uri = "a"')).toMatchObject({ sql: "(NOT (d.uri = ?))", params: ["a"] });
    expect(compileFilter('NOT NOT uri = "a"')?.sql).toBe("(NOT (NOT (d.uri = ?)))");
  });

  it("binds NOT tighter than OR and AND", () => {
    expect(compileFilter('NOT uri = "a" OR uri = "b"')?.sql).toBe("((NOT (d.uri = ?)) OR (d.uri = ?))");
    expect(compileFilter('-uri = "a" AND uri = "b"')?.sql).toBe("((NOT (d.uri = ?)) AND (d.uri = ?))");
  });

  it("groups with parentheses, overriding precedence", () => {
    expect(compileFilter('(uri = "a" AND uri = "b") OR uri = "c"')).toMatchObject({
      sql: "(((d.uri = ?) AND (d.uri = ?)) OR (d.uri = ?))",
      params: ["a", "b", "c"],
    });
    expect(compileFilter('NOT (uri = "a" OR uri = "b")')?.sql).toBe("(NOT ((d.uri = ?) OR (d.uri = ?)))");
    expect(compileFilter('-(uri = "a")')?.sql).toBe("(NOT (d.uri = ?))");
    expect(compileFilter('((uri = "a"))')?.sql).toBe("(d.uri = ?)");
  });

  it("emits SQL that keeps its meaning when embedded after another condition", () => {
    const { sql } = compileFilter('uri = "a" OR uri = "b"') ?? { sql: "" };
    expect(sql.startsWith("(") && sql.endsWith(")")).toBe(true);
    expect(`WHERE (x) AND ${sql}`).toBe("WHERE (x) AND ((d.uri = ?) OR (d.uri = ?))");
  });

  it("keeps hostile values in params, never in the SQL text", () => {
    const compiled = compileFilter(`uri = "x') OR 1=1 --" OR data_source = 'a"; DROP TABLE documents; --'`);
    expect(compiled).toMatchObject({
      sql: "((d.uri = ?) OR (d.data_source = ?))",
      params: ["x') OR 1=1 --", 'a"; DROP TABLE documents; --'],
    });
  });

  it("accepts nesting up to 32 levels and rejects deeper", () => {
    expect(compileFilter(`${"(".repeat(32)}uri = "a"${")".repeat(32)}`)?.sql).toBe("(d.uri = ?)");
    expect(rejection(`${"(".repeat(33)}uri = "a"${")".repeat(33)}`)).toBe("filter: nesting deeper than 32 levels at position 33");
    expect(rejection(`${"NOT ".repeat(33)}uri = "a"`)).toBe("filter: nesting deeper than 32 levels at position 129");
  });
});

describe("compileFilter: errors say what and where", () => {
  it("names an unknown field and lists the supported ones", () => {
    expect(rejection('title = "x"')).toBe(
      'filter: unknown field "title" at position 1; supported fields: data_source, uri, update_time, content_length_bytes, version',
    );
    expect(rejection('uri = "a" AND constructor = "x"')).toBe(
      'filter: unknown field "constructor" at position 15; supported fields: data_source, uri, update_time, content_length_bytes, version',
    );
    expect(rejection('document.uri = "x"')).toMatch(/^filter: unknown field "document.uri" at position 1;/);
  });

  it("rejects ordering and has operators on strings", () => {
    // SPEC 2.4 gives TIMESTAMP and INTEGER fields =, <, <=, >, >= only.
    expect(rejection('update_time != "2026-01-01T00:00:00Z"')).toMatch(/^filter: operator "!=" is not supported for TIMESTAMP field "update_time"/);
    expect(rejection("content_length_bytes != 3")).toMatch(/^filter: operator "!=" is not supported for INTEGER field/);
    expect(rejection('uri > "x"')).toBe('filter: operator ">" is not supported for STRING field "uri" at position 5; use = or !=');
    expect(rejection('data_source:"dart"')).toBe(
      'filter: operator ":" is not supported for STRING field "data_source" at position 12; use = or !=',
    );
    expect(rejection("content_length_bytes : 5")).toBe(
      'filter: operator ":" is not supported for INTEGER field "content_length_bytes" at position 22; use =, <, <=, > or >=',
    );
  });

  it("asks for an operator after a field", () => {
    expect(rejection('uri "x"')).toBe("filter: expected an operator (=, !=, <, <=, >, >=) after \"uri\" at position 5");
    expect(rejection('uri ! "x"')).toBe('filter: unexpected "!" at position 5; use != to compare or NOT to negate');
  });

  it("asks for a quoted string for string fields", () => {
    expect(rejection("data_source = dart.dev")).toBe(
      'filter: expected a quoted string for data_source at position 15, e.g. "dart.dev"',
    );
    expect(rejection("uri = (")).toBe(
      'filter: expected a quoted string for uri at position 7, e.g. "https://dart.dev/language/async"',
    );
  });

  it("asks for a non-negative integer for content_length_bytes", () => {
    for (const value of ["-1", '"5"', "1.5", "1e3", "abc", "99999999999999999999"]) {
      expect(rejection(`content_length_bytes > ${value}`)).toBe(
        "filter: expected a non-negative integer for content_length_bytes at position 24, e.g. 1024",
      );
    }
  });

  it("points at an unclosed or stray parenthesis", () => {
    expect(rejection('uri = "a" AND (uri = "b"')).toBe('filter: unbalanced parenthesis at position 15; close it with ")"');
    expect(rejection('uri = "a")')).toBe('filter: unbalanced parenthesis at position 10; no "(" opens it');
    expect(rejection('uri = "a" AND ()')).toBe("filter: empty parentheses at position 15");
  });

  it("reports input that ends too soon", () => {
    expect(rejection('uri = "a" AND')).toBe('filter: unexpected end of input after "AND"');
    expect(rejection('uri = "a" OR ')).toBe('filter: unexpected end of input after "OR"');
    expect(rejection("NOT")).toBe('filter: unexpected end of input after "NOT"');
    expect(rejection("-")).toBe('filter: unexpected end of input after "-"');
    expect(rejection("(")).toBe('filter: unexpected end of input after "("');
    expect(rejection("uri")).toBe('filter: unexpected end of input after "uri"');
    expect(rejection("update_time >=")).toBe('filter: unexpected end of input after ">="');
  });

  it("reports an unterminated string or an unsupported escape", () => {
    expect(rejection('uri = "abc')).toBe("filter: unterminated string starting at position 7; close it with \"");
    expect(rejection('uri = "abc\\')).toBe("filter: unterminated string starting at position 7; close it with \"");
    expect(rejection('uri = "a\\nb"')).toBe(
      "filter: unsupported escape \"\\n\" at position 9; only \\\", \\' and \\\\ are allowed",
    );
  });

  it("requires upper-case keywords", () => {
    expect(rejection('uri = "a" and uri = "b"')).toBe('filter: keywords are upper-case: write "AND" instead of "and" at position 11');
    expect(rejection('not uri = "a"')).toBe('filter: keywords are upper-case: write "NOT" instead of "not" at position 1');
    expect(rejection('uri = "a" Or uri = "b"')).toBe('filter: keywords are upper-case: write "OR" instead of "Or" at position 11');
  });

  it("rejects a combinator where a restriction belongs", () => {
    expect(rejection('AND uri = "a"')).toBe(
      'filter: unexpected "AND" at position 1; expected a restriction such as uri = "https://…"',
    );
    expect(rejection('uri = "a" AND OR uri = "b"')).toBe(
      'filter: unexpected "OR" at position 15; expected a restriction such as uri = "https://…"',
    );
  });

  it("rejects a stray value or operator after a restriction", () => {
    expect(rejection('uri = "a" "b"')).toBe('filter: unexpected string "b" at position 11; expected AND, OR or another restriction');
    expect(rejection('uri == "a"')).toBe(
      'filter: expected a quoted string for uri at position 6, e.g. "https://dart.dev/language/async"',
    );
  });

  it("rejects AIP-160 features outside the subset", () => {
    // A wildcard is just a literal character: matching stays exact.
    expect(compileFilter('uri = "https://dart.dev/*"')?.params).toEqual(["https://dart.dev/*"]);
    expect(rejection('uri.startsWith("x")')).toMatch(/^filter: unknown field "uri.startsWith" at position 1;/);
    expect(rejection("dart")).toMatch(/^filter: unknown field "dart" at position 1;/);
  });
});

describe("compileFilter: length and size limits", () => {
  it("accepts exactly 500 characters and rejects 501", () => {
    const restriction = 'uri = "a"';
    const filter500 = restriction + " ".repeat(500 - restriction.length);
    expect(compileFilter(filter500)?.params).toEqual(["a"]);
    expect(rejection(filter500 + " ")).toBe("filter must be at most 500 characters (got 501)");
  });

  it("rejects more than 50 restrictions, which would crowd D1's 100 bound parameters", () => {
    expect(compileFilter(Array(50).fill("uri=''").join(" "))?.params).toHaveLength(50);
    expect(rejection(Array(51).fill("uri=''").join(" "))).toBe("filter: too many restrictions (at most 50) at position 351");
  });
});

describe("compileFilter: any input", () => {
  const filterAlphabet = fc.constantFrom(
    ..."()-=<>!:\"'\\ \t.,*01259TZ+".split(""),
    "AND ", "OR ", "NOT ", "and ", "uri", "data_source", "update_time", "content_length_bytes", "title",
    '"2026-01-01T00:00:00Z"', "\u{1F600}", "\uD800",
  );

  it("either compiles to bound SQL or throws INVALID_ARGUMENT, never anything else", () => {
    const check = (filter: string) => {
      try {
        const compiled = compileFilter(filter);
        if (compiled !== null) {
          expect(compiled.sql.split("?").length - 1).toBe(compiled.params.length);
          expect(compiled.sql).toMatch(/^[()a-z_. =!<>?ANDORT]*$/);
        }
      } catch (error) {
        if (!(error instanceof AlmanacError)) throw error;
        expect(error.status).toBe("INVALID_ARGUMENT");
        expect(error.message).toMatch(/^filter/);
      }
    };
    fc.assert(fc.property(fc.string({ maxLength: 200, unit: "grapheme" }), check), { numRuns: 2000 });
    fc.assert(
      fc.property(fc.array(filterAlphabet, { maxLength: 60 }).map((parts) => parts.join("")), check),
      { numRuns: 5000 },
    );
  });

  it("compiles every well-formed filter, binding one parameter per restriction", () => {
    // Letters a–c only, so a value can never spell a field name and skew the count below.
    const valueText = fc.string({ maxLength: 8, unit: fc.constantFrom(..."abc \"'\\()*-=<>".split("")) });
    const restriction = fc.oneof(
      fc.tuple(fc.constantFrom("uri", "data_source"), fc.constantFrom("=", "!="), valueText).map(
        ([field, op, value]) => `${field} ${op} ${JSON.stringify(value)}`,
      ),
      fc.tuple(fc.constantFrom("=", "<", "<=", ">", ">="), fc.date({ noInvalidDate: true, min: new Date("1000-01-01"), max: new Date("9000-01-01") })).map(
        ([op, date]) => `update_time ${op} "${date.toISOString()}"`,
      ),
      fc.tuple(fc.constantFrom("=", "<", "<=", ">", ">="), fc.nat()).map(([op, n]) => `content_length_bytes${op}${n}`),
    );
    const { expr } = fc.letrec<{ expr: string }>((tie) => ({
      expr: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        restriction,
        fc.tuple(tie("expr"), fc.constantFrom(" AND ", " OR ", " "), tie("expr")).map(([a, op, b]) => a + op + b),
        tie("expr").map((e) => `NOT ${e}`),
        tie("expr").map((e) => `-${e}`),
        tie("expr").map((e) => `(${e})`),
      ),
    }));
    fc.assert(
      fc.property(expr, (filter) => {
        fc.pre(filter.length <= 500 && (filter.match(/[(]|NOT |-(?=[a-z(])/g)?.length ?? 0) <= 32);
        const restrictions = filter.match(/(?:uri|data_source|update_time|content_length_bytes) ?(?:!=|<=|>=|=|<|>)/g)?.length ?? 0;
        expect(compileFilter(filter)?.params).toHaveLength(restrictions);
      }),
      { numRuns: 1000 },
    );
  });
});

describe("the version field", () => {
  it("compiles = and != to bound parameters and marks the filter as naming a version", () => {
    expect(compileFilter('version = "v1"')).toMatchObject({ sql: "(d.version = ?)", params: ["v1"], namesVersion: true });
    expect(compileFilter('data_source = "a.dev" AND version != "2.x"')).toMatchObject({ sql: "((d.data_source = ?) AND (d.version != ?))", params: ["a.dev", "2.x"], namesVersion: true });
    expect(compileFilter('data_source = "a.dev"')).not.toHaveProperty("namesVersion");
  });

  it('reads version = "*" as every version, with nothing bound', () => {
    expect(compileFilter('version = "*"')).toMatchObject({ sql: "(1)", params: [], namesVersion: true });
  });

  it("says what is wrong with a version restriction", () => {
    expect(() => compileFilter('version != "*"')).toThrow('filter: version != "*" at position 1 matches nothing; write version = "*" for every version');
    expect(() => compileFilter("version = v1")).toThrow('filter: expected a quoted string for version at position 11, e.g. "v2" (or "*" for every version)');
    expect(() => compileFilter('version > "v1"')).toThrow('filter: operator ">" is not supported for STRING field "version" at position 9; use = or !=');
  });
});
