// Real documentation sources carry their site generator's syntax; ingestion keeps only what a reader sees.
import { describe, expect, it } from "vitest";
import { cleanSiteMarkup, describeMarkupCounts } from "../../src/markdown/site-markup.ts";

describe("cleanSiteMarkup", () => {
  it("strips Liquid tags and expressions, hiding what a {% comment %} hides", () => {
    const { body, removed } = cleanSiteMarkup(
      "A [Stream]({{site.dart-api}}/Stream.html) delivers events.{% render 'note.md' %}\n\n{% comment %}\nTODO: secret\n{% endcomment %}\nEnd.",
    );
    expect(body).toBe("A [Stream](/Stream.html) delivers events.\n\nEnd.");
    expect(removed).toEqual({ "template expressions": 1, "Liquid tags": 2 });
  });

  it("strips processing instructions and HTML comments, even over several lines", () => {
    const { body } = cleanSiteMarkup('<?code-excerpt "a.dart (x)"\n  replace="/a/b/g"?>\nText <!-- note\nfor editors --> here.');
    expect(body).toBe("Text  here.");
  });

  it("never lets a stray {% or {{ swallow text past a blank line", () => {
    const text = '    fmt.Printf("{%d}", x)\n\nA paragraph. %} more\n\n    m := {{ 1\n\nAnother }} one.';
    expect(cleanSiteMarkup(text).body).toBe(text.trim());
  });

  it("keeps code fences byte for byte, except dart.dev's [!highlight!] marks", () => {
    const source = "```dart\n// {{not a template}} <b>kept</b> {% raw %}\nfinal x = [!await!] f();\n```";
    expect(cleanSiteMarkup(source).body).toBe("```dart\n// {{not a template}} <b>kept</b> {% raw %}\nfinal x = await f();\n```");
  });

  it("keeps inline code spans, so a documented {{placeholder}} survives", () => {
    expect(cleanSiteMarkup("Write `{{region}}` where {{site.x}} goes.").body).toBe("Write `{{region}}` where  goes.");
  });

  // Regression: comment and Liquid passes ran before inline code was set aside, eating the examples of pages about templates.
  it("keeps inline code that looks like markup, and the prose around it", () => {
    expect(cleanSiteMarkup("Write `{% if x %}` and `<!--` in code, then text -->. Done").body).toBe("Write `{% if x %}` and `<!--` in code, then text -->. Done");
  });

  // Regression: String.fromCodePoint threw on an entity past U+10FFFF and failed the whole ingest.
  it("leaves an entity that names no character as written", () => {
    expect(cleanSiteMarkup("a &#1114112; b &#x110000; c &#233;").body).toBe("a &#1114112; b &#x110000; c é");
  });

  it("keeps blank lines inside code fences as they are", () => {
    const source = "```python\nimport os\n\n\n\ndef f(): pass\n```";
    expect(cleanSiteMarkup(source).body).toBe(source);
  });

  it("prints what Go's {{raw}} prints and drops the rest of a Go template action", () => {
    expect(cleanSiteMarkup('for i {{raw "<"}} n {{code "/doc/x.go" `/start/`}}').body).toBe("for i < n");
    // go.dev's own: a raw-string argument may hold a brace.
    expect(cleanSiteMarkup('See:\n{{code "context/interface.go" `/A Context/` `/^}/`}}\nThen `{{x}}`.').body).toBe("See:\n\nThen `{{x}}`.");
  });

  it("drops MDX imports, exports and component tags but keeps their text and titles", () => {
    const { body, removed } = cleanSiteMarkup(
      "import Tabs from '@theme/Tabs';\nexport const meta = {};\n\n<Card title=\"Using streams\" link=\"/s\">\n  Read events.\n</Card>\n\nA `List<String>` or List<String> in prose stays.",
    );
    expect(body).toBe("**Using streams**\n  Read events.\n\nA `List<String>` or List<String> in prose stays.");
    expect(removed).toMatchObject({ "MDX imports/exports": 2, "component tags": 2 });
  });

  it("turns HTML headings and <a id> anchors into Markdown headings with explicit ids", () => {
    const { body } = cleanSiteMarkup('<a id="pseudo" ></a>\n### Pseudo-version number\n\n<h2 id="wiki">The <code>Go</code> wiki</h2>');
    expect(body).toBe("### Pseudo-version number {#pseudo}\n\n## The Go wiki {#wiki}");
  });

  it("strips real HTML tags and entities but not <placeholders> readers are meant to see", () => {
    expect(cleanSiteMarkup("A <dfn>module</dfn> &amp; run `x` then go get <module-path>.").body).toBe("A module & run `x` then go get <module-path>.");
  });

  it("removes admonition markers and kramdown attribute lists, keeping the admonition's text", () => {
    expect(cleanSiteMarkup(":::note\nListening starts work.\n:::\n\n| a |\n{:.table}").body).toBe("Listening starts work.\n\n| a |");
  });

  it("summarises what it removed for the ingestion report", () => {
    expect(describeMarkupCounts({ "processing instructions": 12, "Liquid tags": 3 })).toBe("12 processing instructions, 3 Liquid tags");
    expect(describeMarkupCounts({})).toBe("");
  });

  // Regression: trailing blanks were cut with /[ \t]+$/gm, which is quadratic in a run of spaces
  // inside a line; a 5 MB page of padded table cells (Python's genindex-all) took 15 minutes.
  it("keeps a long run of spaces inside a line and drops only the line's trailing ones", () => {
    const padded = `| a${" ".repeat(200_000)}| b |   \nnext  `;
    const { body } = cleanSiteMarkup(padded);
    expect(body).toBe(`| a${" ".repeat(200_000)}| b |\nnext`);
  });
});
