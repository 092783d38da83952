// The one front-matter splitter that documentation pages and query-library entries share.
import { describe, expect, it } from "vitest";
import { parseMarkdownPage } from "../../src/markdown/page.ts";
import { splitFrontMatter } from "../../src/markdown/front-matter.ts";

describe("splitFrontMatter", () => {
  it("gives the unparsed YAML and the body after the closing ---", () => {
    expect(splitFrontMatter("---\ntitle: Hi\n---\nText")).toEqual({ yaml: "title: Hi", body: "Text" });
  });

  it("reads a file saved with a byte-order mark, CRLF line endings and spaces after the delimiters", () => {
    expect(splitFrontMatter("\uFEFF--- \r\ntitle: Hi\r\n---\t\r\nText\r\n")).toEqual({ yaml: "title: Hi", body: "Text\r\n" });
  });

  it("finds no front matter unless the file starts with it", () => {
    expect(splitFrontMatter("Text\n---\ntitle: Hi\n---\n")).toBeNull();
    expect(splitFrontMatter("---\ntitle: Hi\n")).toBeNull();
  });

  it("is what documentation pages are split with", () => {
    expect(parseMarkdownPage("\uFEFF---\r\ntitle: Hi\r\n---\r\nText")).toEqual({ frontMatter: { title: "Hi" }, body: "Text" });
  });
});

describe("the metadata formats real sites use", () => {
  it("reads Hugo's TOML between +++ lines", () => {
    expect(parseMarkdownPage('+++\ntitle = "Hugo page"\nweight = 3\n+++\nBody')).toEqual({ frontMatter: { title: "Hugo page", weight: 3 }, body: "Body" });
  });

  it("reads go.dev's JSON in the HTML comment that opens the page", () => {
    expect(parseMarkdownPage('<!--{\n  "Title": "Go Modules Reference"\n}-->\n## Introduction')).toEqual({
      frontMatter: { Title: "Go Modules Reference" },
      body: "## Introduction",
    });
  });

  it("says which format is malformed", () => {
    expect(() => parseMarkdownPage("+++\ntitle = \n+++\nBody")).toThrow();
    expect(() => parseMarkdownPage("<!--{ not json }-->\nBody")).toThrow();
    expect(() => parseMarkdownPage('+++\n"x" = [1]\n+++\n')).not.toThrow();
  });
});
