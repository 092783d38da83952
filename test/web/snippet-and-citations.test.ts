import { describe, expect, it } from "vitest";
import { answerParagraphs, citedSegments, inlineMarkdown } from "../../src/web/citations.ts";
import { highlightedSnippet, plainText, sectionHeading } from "../../src/web/snippet.ts";

const shown = (parts: { text: string; hit: boolean }[]) => parts.map((part) => (part.hit ? `[${part.text}]` : part.text)).join("");

describe("search snippets", () => {
  it("reads the section's text without its heading line or Markdown punctuation", () => {
    const content = "Keys > Creating\n\n## Make one\n\nRun **`npm run keys -- create`** and see [the guide](https://x.dev).\n\n```sh\nnpm start\n```\n\n| a | b |\n| --- | --- |\n| 1 | 2 |";
    expect(plainText(content)).toBe("Make one Run npm run keys -- create and see the guide. npm start · a · b · 1 · 2");
  });

  it("names the section below the page title, and none for a page's lead", () => {
    expect(sectionHeading("Filters > Fields > Strings\n\nText", "Filters")).toBe("Fields > Strings");
    expect(sectionHeading("Filters\n\nLead text", "Filters")).toBe("");
  });

  it("marks the query's words by stem, as search matches them", () => {
    expect(shown(highlightedSnippet("T\n\nEach key has quotas; a quota resets.", "Quota KEYS"))).toBe("Each [key] has [quotas]; a [quota] resets.");
  });

  it("cuts a long section around its densest run of query words, between words, with ellipses", () => {
    const filler = "lorem ipsum dolor sit amet ".repeat(20);
    const parts = highlightedSnippet(`T\n\n${filler}the answer quota resets daily ${filler}`, "quota resets", 120);
    const text = shown(parts);
    expect(text.startsWith("…")).toBe(true);
    expect(text.endsWith("…")).toBe(true);
    expect(text).toContain("the answer [quota] [resets] daily");
    expect(text.length).toBeLessThanOrEqual(120 + 8);
    expect(text).not.toMatch(/…\S*[a-z]… /);
  });

  it("shows a section without query words from its start", () => {
    expect(shown(highlightedSnippet("T\n\nNothing to mark here.", "zebra"))).toBe("Nothing to mark here.");
  });
});

describe("answer citations", () => {
  const answer = {
    answerText: "Keys are hashed. Quotas reset — daily.\n\nThe REST API answers too.",
    references: ["documents/a", "documents/b"],
    citations: [
      { startIndex: 0, endIndex: 16, sources: [{ referenceIndex: 0 }] },
      { startIndex: 17, endIndex: 40, sources: [{ referenceIndex: 0 }, { referenceIndex: 1 }] },
      { startIndex: 42, endIndex: 67, sources: [{ referenceIndex: 1 }] },
    ],
  };

  it("cuts the text after each cited span by UTF-8 byte offsets, never inside a character", () => {
    expect(citedSegments(answer)).toEqual([
      { text: "Keys are hashed.", references: [1] },
      { text: " Quotas reset — daily.", references: [1, 2] },
      { text: "\n\nThe REST API answers too.", references: [2] },
    ]);
  });

  it("keeps the answer's paragraphs, each with its markers", () => {
    expect(answerParagraphs(answer)).toEqual([
      [{ text: "Keys are hashed." }, { reference: 1 }, { text: " Quotas reset — daily." }, { reference: 1 }, { reference: 2 }],
      [{ text: "The REST API answers too." }, { reference: 2 }],
    ]);
  });

  it("shows inline code and bold from the pages as such", () => {
    expect(inlineMarkdown("Run `npm start`, **then** open it")).toEqual([
      { text: "Run " },
      { text: "npm start", style: "code" },
      { text: ", " },
      { text: "then", style: "strong" },
      { text: " open it" },
    ]);
  });
});
