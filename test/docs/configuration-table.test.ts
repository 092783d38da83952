// The configuration page is the operator's reference for wrangler.toml [vars]:
// every variable the Worker reads from there is in its table, under the same
// name and with the same default, and the table names nothing that is not.
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";

const files = import.meta.glob<string>(["../../wrangler.toml", "../../corpus/docs/configuration.md"], {
  query: "?raw",
  import: "default",
  eager: true,
});

function file(path: string): string {
  const text = files[path];
  if (text === undefined) throw new Error(`cannot read ${path}`);
  return text;
}

/** wrangler.toml's [vars], as the Worker gets them. */
function wranglerVars(): Record<string, string> {
  const config = parse(file("../../wrangler.toml")) as { vars?: Record<string, unknown> };
  return Object.fromEntries(Object.entries(config.vars ?? {}).map(([name, value]) => [name, String(value)]));
}

/**
 * The variables table of the configuration page: each row's name (its first
 * cell, in backticks) and default (the first code span of its second cell;
 * `""` is the empty string, words after it such as "(any)" only explain it).
 */
function documentedVars(): Record<string, string> {
  const page = file("../../corpus/docs/configuration.md");
  const section = page.split(/^## /m).find((part) => part.startsWith("Almanac configuration reference"));
  if (section === undefined) throw new Error('configuration.md has no "## Almanac configuration reference" section');
  const rows = section.split("\n").filter((line) => line.startsWith("| `"));
  return Object.fromEntries(
    rows.map((row) => {
      const [name, defaults] = row.split(" | ");
      const nameMatch = /^\| `([A-Z_]+)`$/.exec(name ?? "");
      const defaultMatch = /^`([^`]*)`/.exec(defaults ?? "");
      if (!nameMatch?.[1] || !defaultMatch) throw new Error(`configuration.md: cannot read the row ${row}`);
      const value = defaultMatch[1] === '""' ? "" : (defaultMatch[1] ?? "");
      return [nameMatch[1], value];
    }),
  );
}

describe("the configuration page's variables table", () => {
  it("documents every wrangler.toml [vars] entry with its default, and nothing else", () => {
    const vars = wranglerVars();
    expect(Object.keys(vars).length).toBeGreaterThan(0);
    expect(documentedVars()).toEqual(vars);
  });

  it("lists the variables in wrangler.toml's order, so the two read side by side", () => {
    expect(Object.keys(documentedVars())).toEqual(Object.keys(wranglerVars()));
  });
});
