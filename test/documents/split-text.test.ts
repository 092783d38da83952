// Cutting text into pieces that fit: whatever the lines, the pieces concatenate back to the text.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { splitText, type LineStart } from "../../src/documents/read/split-text.ts";

/** Line starts of `text`, each a paragraph after a blank line and a heading before `#`. */
function startsOf(text: string): LineStart[] {
  const starts: LineStart[] = [];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) {
    const kind = text[i + 1] === "#" ? "heading" : text[i - 1] === "\n" ? "paragraph" : "line";
    starts.push({ offset: i + 1, kind });
  }
  return starts;
}

const pieces = (text: string, room: number) => {
  const cuts = splitText(text, startsOf(text), 0, room);
  return cuts.slice(1).map((end, index) => text.slice(cuts[index], end));
};

describe("splitText", () => {
  it("reproduces any text exactly, in pieces no longer than the room, never splitting a surrogate pair", () => {
    const piece = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom("\n", "\n\n", "\n# Heading\n", " ", "🙂", "x".repeat(500)));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), fc.integer({ min: 2, max: 300 }), (parts, room) => {
        const text = parts.join("");
        const cut = pieces(text, room);
        expect(cut.join("")).toBe(text);
        for (const part of cut) expect(part.length).toBeLessThanOrEqual(room);
        for (const part of cut.slice(0, -1)) expect(/[\uD800-\uDBFF]$/.test(part)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it("prefers a heading, then a paragraph, then a line, then a space", () => {
    expect(pieces("aaaa\n# H\nbb\n\ncc\ndd", 10)[0]).toBe("aaaa\n");
    expect(pieces("aaaa bbbb\ncc\n\ndd ee", 16)[0]).toBe("aaaa bbbb\ncc\n\n");
    expect(pieces("aaaa bbbb\ncc dd ee", 14)[0]).toBe("aaaa bbbb\n");
    expect(pieces("aaaa bbbb cccc dddd", 12)[0]).toBe("aaaa bbbb ");
    expect(pieces("abcdefghij", 4)).toEqual(["abcd", "efgh", "ij"]);
  });
});
