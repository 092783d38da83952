/**
 * A page's headings and the anchors the real site gives them: the one place
 * anchors are made, so the chunk ids search results link to (`uri#anchor`)
 * and the sections get_documents serves by name (`name#anchor`) always agree.
 */
import { headingSlug, markdownLines, type MarkdownLine } from "./page.ts";

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
  anchors: UsedAnchors;
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
  const anchors = new UsedAnchors([LEAD_ANCHOR]);
  const path: { level: number; text: string }[] = [];
  for (const line of markdownLines(body)) {
    if (line.heading) {
      while (path.length > 0 && (path[path.length - 1]?.level ?? 0) >= line.heading.level) path.pop();
      // A leading H1 that repeats the page title adds nothing to the path.
      if (!(line.heading.level === 1 && line.heading.text === title)) path.push(line.heading);
      const anchor = anchors.claim(line.heading.id ?? headingSlug(line.heading.text));
      headings.push({ anchor, level: line.heading.level, text: line.heading.text, line: lines.length, path: path.map((h) => h.text) });
    }
    lines.push(line);
  }
  return { lines, headings, anchors };
}

/**
 * The anchors of one page, handed out in GitHub's scheme (anchor, anchor-1,
 * anchor-2, …), each checked against every anchor handed out, since "Step",
 * "Step", "Step 1" would otherwise give step-1 twice.
 */
export class UsedAnchors {
  private readonly used: Set<string>;
  /**
   * Per anchor, the suffix to try next. Anchors are never given back, so the
   * search goes on where it stopped: counting up from 1 for every repeat made
   * a page of 10,000 "Step" headings take 6 s.
   */
  private readonly nextSuffix = new Map<string, number>();
  /** Per anchor, the part number claimPart tries next, for the same reason. */
  private readonly nextPart = new Map<string, number>();

  constructor(anchors: Iterable<string>) {
    this.used = new Set(anchors);
  }

  /** `anchor`, or its first free numbered form, now handed out. */
  claim(anchor: string): string {
    let id = anchor;
    if (this.used.has(id)) {
      let n = this.nextSuffix.get(anchor) ?? 1;
      while (this.used.has(`${anchor}-${n}`)) n += 1;
      id = `${anchor}-${n}`;
      this.nextSuffix.set(anchor, n + 1);
    }
    this.used.add(id);
    return id;
  }

  /**
   * `anchor-part-N` for a long section's further piece, N the first free
   * number from `part`: the id always ends in `-part-N`, which links drop
   * (search-documents.ts sectionLink), even where the page already named a
   * heading `anchor-part-N` (html.ts anchorUnnamedHeadings).
   */
  claimPart(anchor: string, part: number): string {
    // As in claim: numbers below the last one handed out for this anchor are taken already.
    let n = Math.max(part, this.nextPart.get(anchor) ?? part);
    while (this.used.has(`${anchor}-part-${n}`)) n += 1;
    this.nextPart.set(anchor, n + 1);
    const id = `${anchor}-part-${n}`;
    this.used.add(id);
    return id;
  }
}
