import type { Answer } from "../documents/answer/answer-query.ts";

/** A stretch of an answer and the references (1-based) whose markers follow it. */
interface AnswerSegment {
  text: string;
  references: number[];
}

/**
 * An answer cut at the end of each cited span, so a page can put numbered
 * markers after the words they ground. Citations carry UTF-8 byte offsets
 * (as the REST API does), so the text is cut as bytes, never mid-character.
 *
 * @example citedSegments({ answerText: "A. B.", references: ["documents/x"], citations: [{ startIndex: 0, endIndex: 2, sources: [{ referenceIndex: 0 }] }] })
 * // [{ text: "A.", references: [1] }, { text: " B.", references: [] }]
 */
export function citedSegments(answer: Answer): AnswerSegment[] {
  const bytes = new TextEncoder().encode(answer.answerText);
  const decoder = new TextDecoder();
  const segments: AnswerSegment[] = [];
  let cursor = 0;
  for (const citation of [...answer.citations].sort((a, b) => a.endIndex - b.endIndex)) {
    const end = Math.min(Math.max(citation.endIndex, cursor), bytes.length);
    const references = citation.sources.map((source) => source.referenceIndex + 1);
    const last = segments[segments.length - 1];
    // Two citations ending at one place share the text before them.
    if (end === cursor && last) last.references.push(...references);
    else segments.push({ text: decoder.decode(bytes.slice(cursor, end)), references });
    cursor = end;
  }
  if (cursor < bytes.length) segments.push({ text: decoder.decode(bytes.slice(cursor)), references: [] });
  return segments;
}

/** A piece of an answer paragraph: text, or the marker of a reference (1-based). */
type AnswerInline = { text: string } | { reference: number };

/**
 * The answer as paragraphs (its sentences come from different pages, which
 * it separates with blank lines), each a run of text and citation markers.
 *
 * @example answerParagraphs(answer) // [[{ text: "A." }, { reference: 1 }], [{ text: "B." }, { reference: 2 }]]
 */
export function answerParagraphs(answer: Answer): AnswerInline[][] {
  const paragraphs: AnswerInline[][] = [[]];
  for (const segment of citedSegments(answer)) {
    segment.text.split(/\n{2,}/).forEach((piece, index) => {
      if (index > 0) paragraphs.push([]);
      const text = index > 0 ? piece.replace(/^\s+/, "") : piece;
      if (text) paragraphs[paragraphs.length - 1]?.push({ text });
    });
    for (const reference of segment.references) paragraphs[paragraphs.length - 1]?.push({ reference });
  }
  return paragraphs.filter((paragraph) => paragraph.length > 0);
}

/** A piece of a sentence's inline Markdown: plain text, `code` or **strong**. */
export interface InlinePart {
  text: string;
  style?: "code" | "strong";
}

/**
 * Answer sentences keep the Markdown of their page; a page shows inline code
 * and bold as such rather than as backticks and asterisks.
 *
 * @example inlineMarkdown("Use `npm start` **now**") // [{ text: "Use " }, { text: "npm start", style: "code" }, { text: " " }, { text: "now", style: "strong" }]
 */
export function inlineMarkdown(text: string): InlinePart[] {
  const parts: InlinePart[] = [];
  let cursor = 0;
  for (const match of text.matchAll(/`([^`\n]+)`|\*\*([^*\n]+)\*\*/g)) {
    if (match.index > cursor) parts.push({ text: text.slice(cursor, match.index) });
    parts.push(match[1] !== undefined ? { text: match[1], style: "code" } : { text: match[2] ?? "", style: "strong" });
    cursor = match.index + match[0].length;
  }
  if (cursor < text.length) parts.push({ text: text.slice(cursor) });
  return parts;
}
