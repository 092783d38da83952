/**
 * A page's headings and the anchors the real site gives them: the one place
 * anchors are made, so the chunk ids search results link to (`uri#anchor`)
 * and the sections get_documents serves by name (`name#anchor`) always agree.
 */
import { headingSlug, markdownLines, type MarkdownLine } from "../markdown/page.ts";

/** One heading of a page. */
export interface OutlineHeading {
  /** Unique on the page: the heading's explicit id, else its GitHub-style slug, `-1`, `-2`… for repeats. */
  anchor: string;
  level: number;
  text: string;
  /** Index of the heading's line in the body. */
  line: number;
  /** Headings from the top down to this one; a leading H1 repeating the title is left out. */
  path: string[];
}

/** A page body as lines, with its headings; lead text before the first heading has the anchor `intro`. */
export interface PageOutline {
  lines: MarkdownLine[];
  headings: OutlineHeading[];
  /** Every anchor handed out, so derived ids (`x-part-2`) can avoid them. */
  anchors: Set<string>;
}

/** The anchor of the text before the first heading. */
export const LEAD_ANCHOR = "intro";

/**
 * The headings of a Markdown body with their anchors and heading paths.
 *
 * @example outlineOf("Page", "Lead\n## Setup\n## Setup").headings.map((h) => h.anchor) // ["setup", "setup-1"]
 */
export function outlineOf(title: string, body: string): PageOutline {
  const lines: MarkdownLine[] = [];
  const headings: OutlineHeading[] = [];
  const anchors = new Set<string>([LEAD_ANCHOR]);
  const path: { level: number; text: string }[] = [];
  for (const line of markdownLines(body)) {
    if (line.heading) {
      while (path.length > 0 && (path[path.length - 1]?.level ?? 0) >= line.heading.level) path.pop();
      // A leading H1 that repeats the page title adds nothing to the path.
      if (!(line.heading.level === 1 && line.heading.text === title)) path.push(line.heading);
      const anchor = uniqueAnchor(line.heading.id ?? headingSlug(line.heading.text), anchors);
      headings.push({ anchor, level: line.heading.level, text: line.heading.text, line: lines.length, path: path.map((h) => h.text) });
    }
    lines.push(line);
  }
  return { lines, headings, anchors };
}

/**
 * GitHub's scheme (anchor, anchor-1, anchor-2, …), checked against every
 * anchor handed out, since "Step", "Step", "Step 1" would otherwise give step-1 twice.
 */
export function uniqueAnchor(anchor: string, used: Set<string>): string {
  let id = anchor;
  for (let n = 1; used.has(id); n += 1) id = `${anchor}-${n}`;
  used.add(id);
  return id;
}
