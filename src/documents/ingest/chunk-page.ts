import { LEAD_ANCHOR, outlineOf } from "../../markdown/outline.ts";

/** A piece of a page that reads on its own: its heading path travels with it. */
export interface Chunk {
  /** Unique within the document: the heading's explicit id (`{#id}`), else its GitHub-style slug. */
  id: string;
  position: number;
  /** Heading path below the title, e.g. "Handling Futures > Using await"; "" for the lead. */
  heading: string;
  /** Markdown, starting with the heading path so a lone chunk keeps its context. */
  content: string;
}

/**
 * Sections longer than this are split at paragraph breaks. About 400 tokens:
 * small enough that ten search hits fit a model's context comfortably, large
 * enough that a paragraph and its code sample usually stay together.
 */
export const MAX_CHUNK_CHARS = 1600;

interface Section {
  headingPath: string[];
  anchor: string;
  lines: string[];
  /** Line indexes (into `lines`) where a paragraph may be cut: blank lines outside code. */
  breaks: number[];
}

/**
 * Splits a page body at headings, then long sections at paragraph breaks
 * (never inside a code fence). Empty sections are dropped. Ids are the
 * headings' anchors (outline.ts), `-part-N` for the further pieces of a
 * long section.
 */
export function chunkDocument(title: string, body: string): Chunk[] {
  const { lines, headings, anchors } = outlineOf(title, body);
  const sections: Section[] = [];
  let current: Section = { headingPath: [], anchor: LEAD_ANCHOR, lines: [], breaks: [] };
  const headingAt = new Map(headings.map((heading) => [heading.line, heading]));
  lines.forEach((line, index) => {
    const heading = headingAt.get(index);
    if (heading) {
      sections.push(current);
      current = { headingPath: heading.path, anchor: heading.anchor, lines: [], breaks: [] };
      return;
    }
    if (!line.inFence && line.text.trim() === "") current.breaks.push(current.lines.length);
    current.lines.push(line.text);
  });
  sections.push(current);

  const chunks: Chunk[] = [];
  for (const section of withShortLeadsCarried(sections)) {
    const heading = section.headingPath.join(" > ");
    // A page whose first heading is its title ("8.14. JSON Types" twice) names it once.
    const [first, ...rest] = section.headingPath;
    const path = first !== undefined && squash(first) === squash(title) ? rest : section.headingPath;
    const prefix = [title, ...path].join(" > ");
    splitSection(section).forEach((part, index) => {
      chunks.push({
        id: index === 0 ? section.anchor : anchors.claimPart(section.anchor, index + 1),
        position: chunks.length,
        heading,
        content: `${prefix}\n\n${part}`,
      });
    });
  }
  return chunks;
}

/**
 * A piece shorter than this is not cut off from what follows: a lead-in
 * ("History", "For example:") belongs with the table or code it introduces,
 * and alone it is a result with nothing to read.
 */
const MIN_PART_CHARS = 200;

/**
 * A section whose own text is shorter than MIN_PART_CHARS and is followed by
 * its first subsection ("> Stability: 2 - Stable" under Node's module
 * heading, a one-line preface) is read at the head of that subsection: alone
 * it would be a result with nothing to read. The subsection keeps its
 * anchor and heading path, which names the section too.
 */
function withShortLeadsCarried(sections: readonly Section[]): Section[] {
  const result: Section[] = [];
  let carried: Section | undefined;
  for (const [index, original] of sections.entries()) {
    let section = original;
    if (carried) {
      const lines = [...carried.lines, ""];
      section = { ...section, lines: [...lines, ...section.lines], breaks: [...carried.breaks, carried.lines.length, ...section.breaks.map((cut) => cut + lines.length)] };
      carried = undefined;
    }
    const next = sections[index + 1];
    const text = section.lines.join("\n").trim();
    const isShortLead = text.length > 0 && text.length < MIN_PART_CHARS && next !== undefined && isBelow(next.headingPath, section.headingPath);
    if (isShortLead) carried = section;
    else result.push(section);
  }
  return result;
}

function isBelow(path: readonly string[], ancestor: readonly string[]): boolean {
  return path.length > ancestor.length && ancestor.every((heading, index) => path[index] === heading);
}

/** A Markdown thematic break (`---`, `* * *`): a line between blocks, nothing to read. */
const THEMATIC_BREAK = /^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$/;

/**
 * The section's text in pieces of at most MAX_CHUNK_CHARS where breaks
 * allow, none shorter than MIN_PART_CHARS unless the section is; thematic
 * breaks and pieces without a letter or digit are left out.
 */
function splitSection(section: Section): string[] {
  const paragraphs: string[] = [];
  let start = 0;
  for (const cut of [...section.breaks, section.lines.length]) {
    const text = section.lines.slice(start, cut).join("\n").trim();
    if (text && !THEMATIC_BREAK.test(text)) paragraphs.push(text);
    start = cut + 1;
  }
  const parts: string[] = [];
  let part = "";
  for (const paragraph of paragraphs) {
    if (part.length >= MIN_PART_CHARS && part.length + paragraph.length + 2 > MAX_CHUNK_CHARS) {
      parts.push(part);
      part = paragraph;
    } else {
      part = part ? `${part}\n\n${paragraph}` : paragraph;
    }
  }
  if (part) parts.push(part);
  return parts.filter((text) => /[\p{L}\p{N}]/u.test(text));
}

function squash(text: string): string {
  return text.replace(/\s+/g, " ").trim().toLowerCase();
}
