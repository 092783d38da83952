// The body rules and path rules every entry file must follow, with the field
// at fault named in each refusal.
import { describe, expect, it } from "vitest";
import { parseEntryFile, prepareLibrary } from "../../src/library/parse-entry.ts";

const FRONT = `title: Repositories of an org
description: Lists the repositories of one GitHub organization.
verb: select
status: stable
providers: [github]
services: [repos]
tags: [github, repos]
intent_keywords: [list org repos, github inventory]
cost: { fan_out: none, expensive: false }`;

const ORG = `params:
  - name: org
    type: identifier
    required: true
    description: Organization login
    example: stackql`;

function file(front: string, query = "SELECT name FROM github.repos.repos WHERE org = '{{org}}';", rest = ""): string {
  return `---\n${front}\n---\n\nOne paragraph.\n\n## Query\n\n\`\`\`sql\n${query}\n\`\`\`\n${rest}`;
}

const problems = (path: string, text: string) => {
  const parsed = parseEntryFile(path, text);
  return "problems" in parsed ? parsed.problems : [];
};

describe("parseEntryFile", () => {
  // Regression: every ";" counted, so WHERE name = 'a;b' was "more than one statement".
  it("counts only the semicolons that end statements, not those in strings or comments", () => {
    const query = "SELECT name -- one; two\nFROM github.repos.repos /* a;b */ WHERE org = '{{org}}' AND name != 'it''s;x';";
    expect(problems("github/repos/org.md", file(`${FRONT}\n${ORG}`, query))).toEqual([]);
  });

  // Regression: an `import` line inside a code sample in ## Notes was taken for MDX.
  it("takes import/export lines for MDX only outside code", () => {
    const notes = "\n## Notes\n\n```python\nimport stackql\n```\n";
    expect(problems("github/repos/org.md", file(`${FRONT}\n${ORG}`, undefined, notes))).toEqual([]);
    expect(problems("github/repos/org.md", file(`${FRONT}\n${ORG}`, undefined, "\nimport X from './x'\n"))).toContainEqual({
      field: "body",
      message: "has MDX import/export lines; entries are CommonMark",
    });
  });

  it("reads a valid entry: id from the path, first sql fence under ## Query byte for byte, notes as one line", () => {
    const parsed = parseEntryFile("github/repos/org.md", file(`${FRONT}\n${ORG}`, "SELECT name\n  FROM github.repos.repos WHERE org = '{{org}}';", "\n## Notes\n\nFirst line\nsecond line.\n\nNext paragraph.\n"));
    expect(parsed).toHaveProperty("entry");
    if (!("entry" in parsed)) return;
    expect(parsed.entry).toMatchObject({
      id: "github/repos/org",
      template: "SELECT name\n  FROM github.repos.repos WHERE org = '{{org}}';",
      notes: "First line second line. Next paragraph.",
      keywords: [],
      params: [{ name: "org", type: "identifier", required: true }],
    });
  });

  it("reads an entry saved with a byte-order mark and CRLF line endings as documentation pages are read", () => {
    const text = file(`${FRONT}\n${ORG}`, undefined, "\n## Notes\n\nSome notes.\n");
    const plain = parseEntryFile("github/repos/org.md", text);
    const windows = parseEntryFile("github/repos/org.md", `\uFEFF${text.replaceAll("\n", "\r\n")}`);
    expect(windows).toHaveProperty("entry");
    expect(windows).toEqual(plain);
  });

  it.each([
    ["github/repos.md", file(`${FRONT}\n${ORG}`), "path", 'the id "github/repos" must be family/service/slug in lower-case letters, digits, "_" and "-"'],
    ["GitHub/repos/org.md", file(`${FRONT}\n${ORG}`), "path", 'the id "GitHub/repos/org" must be family/service/slug in lower-case letters, digits, "_" and "-"'],
    [`github/repos/${"x".repeat(300)}.md`, file(`${FRONT}\n${ORG}`), "path", "the id is longer than 300 characters"],
    ["google/repos/org.md", file(`${FRONT}\n${ORG}`), "providers[0]", '"github" (family "github") must belong to the family in the path, "google"'],
    ["github/pulls/org.md", file(`${FRONT}\n${ORG}`), "services", 'must include "pulls", the service in the path'],
    ["github/repos/org.md", "no front matter", "front matter", "missing the YAML front matter block (--- … ---) at the top"],
    ["github/repos/org.md", file(`${FRONT}\n${ORG}`).replace("## Query", "## Querying"), "## Query", "missing the ## Query section"],
    ["github/repos/org.md", file(`${FRONT}\n${ORG}`).replace("```sql", "```"), "## Query", "has no ```sql fence"],
    ["github/repos/org.md", file(`${FRONT}\n${ORG}`, "DELETE FROM github.repos.repos WHERE org = '{{org}}';"), "verb", 'is select but the statement starts with "delete" (expected select, with, show, describe)'],
    ["github/repos/org.md", file(`${FRONT}\n${ORG}`, "SELECT 1 WHERE org = '{{org}}'; SELECT 2;"), "## Query", "the template must hold exactly one statement"],
    ["github/repos/org.md", file(`${FRONT}\n${ORG}`, "SELECT '{{org}}'"), "## Query", "the statement must end with ';'"],
    ["github/repos/org.md", file(`${FRONT}\n${ORG}`, "SELECT '{{org}}', '{{repo}}';"), "## Query", "placeholder {{repo}} is not declared in params"],
    ["github/repos/org.md", file(`${FRONT}\n${ORG}`, "SELECT 1;"), "params[0]", '"org" is declared but not used in the template'],
    ["github/repos/org.md", file(`${FRONT}\n${ORG.replace("    example: stackql", "")}`), "params[0].example", "is required when the param has no default"],
    ["github/repos/org.md", file(`${FRONT}\n${ORG.replace("example: stackql", "example: not an id")}`), "params[0].example", 'is not a valid value: param "org" must be an identifier matching ^[A-Za-z_][A-Za-z0-9_-]*$, got "not an id"'],
    ["github/repos/org.md", file(`${FRONT}\n${ORG.replace("type: identifier", "type: string\n    pattern: \"(a+)+$\"")}`), "params[0].pattern", "is refused: nested quantifiers (a repeated group that itself repeats, like (a+)+) are refused"],
    ["github/repos/org.md", file(`${FRONT}\n${ORG.replace("type: identifier", "type: enum\n    enum: [a, b]")}`), "params[0].example", 'is not a valid value: param "org" must be one of a, b, got "stackql"'],
    ["github/repos/org.md", file(`${FRONT}\n${ORG.replace("type: identifier", 'type: enum\n    enum: ["a\\\\b", stackql]')}`), "params[0].enum[0]", 'is not a valid value: param "org" must not contain a backslash or control characters'],
    ["github/repos/org.md", file(`${FRONT}\n${ORG.replace("type: identifier", "type: number\n    pattern: \"[0-9]+\"")}`), "params[0].pattern", "is only allowed on string params, not number"],
    ["github/repos/org.md", file(`${FRONT}\n${ORG}\nrelated: [github/repos/org]`), "related", "lists the entry itself"],
  ])("refuses %s: %s", (path, text, field, message) => {
    expect(problems(path, text)).toContainEqual({ field, message });
  });

  it("refuses a later file that repeats a title", () => {
    const text = file(`${FRONT}\n${ORG}`);
    const { entries, refused } = prepareLibrary([
      { path: "github/repos/b.md", text },
      { path: "github/repos/a.md", text },
    ]);
    expect(entries.map((entry) => entry.id)).toEqual(["github/repos/a"]);
    expect(refused).toEqual([{ path: "github/repos/b.md", problems: [{ field: "title", message: "repeats the title of github/repos/a; titles are unique across the library" }] }]);
  });
});
