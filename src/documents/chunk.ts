import { headingSlug, markdownLines } from "../markdown/page.ts";

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
 * (never inside a code fence). Empty sections are dropped.
 */
export function chunkDocument(title: string, body: string): Chunk[] {
  const sections: Section[] = [];
  const path: { level: number; text: string }[] = [];
  let current: Section = { headingPath: [], anchor: "intro", lines: [], breaks: [] };
  for (const line of markdownLines(body)) {
    if (line.heading) {
      sections.push(current);
      while (path.length > 0 && (path[path.length - 1]?.level ?? 0) >= line.heading.level) path.pop();
      // A leading H1 that repeats the page title adds nothing to the path.
      if (!(line.heading.level === 1 && line.heading.text === title)) path.push(line.heading);
      current = { headingPath: path.map((h) => h.text), anchor: line.heading.id ?? headingSlug(line.heading.text), lines: [], breaks: [] };
      continue;
    }
    if (!line.inFence && line.text.trim() === "") current.breaks.push(current.lines.length);
    current.lines.push(line.text);
  }
  sections.push(current);

  const chunks: Chunk[] = [];
  const usedIds = new Set<string>();
  // GitHub's scheme (anchor, anchor-1, anchor-2, …), checked against every id
  // handed out, since "Step", "Step", "Step 1" would otherwise give step-1 twice.
  const uniqueId = (anchor: string): string => {
    let id = anchor;
    for (let n = 1; usedIds.has(id); n += 1) id = `${anchor}-${n}`;
    usedIds.add(id);
    return id;
  };
  for (const section of sections) {
    const heading = section.headingPath.join(" > ");
    const prefix = [title, ...section.headingPath].join(" > ");
    const parts = splitSection(section);
    parts.forEach((part, index) => {
      chunks.push({
        id: uniqueId(index === 0 ? section.anchor : `${section.anchor}-part-${index + 1}`),
        position: chunks.length,
        heading,
        content: `${prefix}\n\n${part}`,
      });
    });
  }
  return chunks;
}

/** The section's text in pieces of at most MAX_CHUNK_CHARS where breaks allow. */
function splitSection(section: Section): string[] {
  const paragraphs: string[] = [];
  let start = 0;
  for (const cut of [...section.breaks, section.lines.length]) {
    const text = section.lines.slice(start, cut).join("\n").trim();
    if (text) paragraphs.push(text);
    start = cut + 1;
  }
  const parts: string[] = [];
  let part = "";
  for (const paragraph of paragraphs) {
    if (part && part.length + paragraph.length + 2 > MAX_CHUNK_CHARS) {
      parts.push(part);
      part = paragraph;
    } else {
      part = part ? `${part}\n\n${paragraph}` : paragraph;
    }
  }
  if (part) parts.push(part);
  return parts;
}
