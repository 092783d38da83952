/**
 * A site's template, learnt from the site itself: the pieces of text (a
 * table cell, a link, a short line) that most of its pages repeat. A block at
 * the top or bottom of a page made mostly of such pieces is the site's
 * navigation (DocBook's Prev / Up / Home / Next tables, a breadcrumb, a
 * footer), not the page's article, whatever the generator calls it; so it
 * holds on sites whose markup no rule here names.
 */

/** A piece repeated on at least this share of the pages read is the site's, not a page's. */
const TEMPLATE_SHARE = 0.5;

/** Pages needed before anything is called template: fewer say nothing about the site. */
const MIN_PAGES = 4;

/** A block is navigation when at least this share of its pieces is template (the rest: this page's and its neighbours' titles). */
const BLOCK_TEMPLATE_SHARE = 0.5;

/** Counts kept between a run's pieces: the most repeated only, so the state stays small. */
const KEPT_COUNTS = 400;

/** What a run carries of the template between its pieces: plain JSON. */
export interface TemplateState {
  pages: number;
  counts: [string, number][];
}

/** The template learnt so far in one run. */
export class SiteTemplate {
  private pages: number;
  private readonly counts: Map<string, number>;

  constructor(state?: TemplateState) {
    this.pages = state?.pages ?? 0;
    this.counts = new Map(state?.counts);
  }

  /** Learns from the Markdown of pages read. */
  learn(pages: readonly string[]): void {
    for (const markdown of pages) {
      this.pages += 1;
      const seen = new Set(blocksOf(markdown).flatMap((block) => piecesOf(block)));
      for (const piece of seen) this.counts.set(piece, (this.counts.get(piece) ?? 0) + 1);
    }
  }

  /**
   * The page without the template blocks at its top and bottom, where a
   * site puts its navigation; a block in the middle, or a heading, is the
   * article's. A page that would be left empty is kept as it was.
   */
  strip(markdown: string): { markdown: string; stripped: boolean } {
    const blocks = blocksOf(markdown);
    let first = 0;
    let last = blocks.length;
    while (first < last && this.isTemplate(blocks[first] as string)) first += 1;
    while (last > first && this.isTemplate(blocks[last - 1] as string)) last -= 1;
    if (first === 0 && last === blocks.length) return { markdown, stripped: false };
    if (first === last) return { markdown, stripped: false };
    return { markdown: blocks.slice(first, last).join("\n\n"), stripped: true };
  }

  /** What the next piece of the run needs. */
  toState(): TemplateState {
    const counts = [...this.counts].filter(([, count]) => count > 1).sort((a, b) => b[1] - a[1]).slice(0, KEPT_COUNTS);
    return { pages: this.pages, counts };
  }

  private isTemplate(block: string): boolean {
    if (this.pages < MIN_PAGES || /^#{1,6}\s/.test(block) || block.startsWith("```")) return false;
    const pieces = piecesOf(block);
    if (pieces.length === 0) return false;
    const floor = Math.max(3, Math.ceil(this.pages * TEMPLATE_SHARE));
    const common = pieces.filter((piece) => (this.counts.get(piece) ?? 0) >= floor).length;
    return common / pieces.length >= BLOCK_TEMPLATE_SHARE;
  }
}

/** The page's blocks: runs of lines between blank lines, code fences kept whole. */
function blocksOf(markdown: string): string[] {
  const blocks: string[] = [];
  let current: string[] = [];
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (!fenced && line.trim() === "") {
      if (current.length > 0) blocks.push(current.join("\n"));
      current = [];
      continue;
    }
    current.push(line);
  }
  if (current.length > 0) blocks.push(current.join("\n"));
  return blocks;
}

/**
 * The pieces a block is compared by: its table cells, else its links, else
 * its lines, each as plain words (targets, marks and spacing dropped), so a
 * link's target or a cell's padding does not make one piece two.
 */
function piecesOf(block: string): string[] {
  const lines = block.split("\n").filter((line) => !/^\s*\|?\s*:?-{3,}/.test(line));
  const table = lines.length > 0 && lines.every((line) => line.trimStart().startsWith("|"));
  const links = [...block.matchAll(/\[([^\]]*)\]\([^)]*\)/g)].map((match) => match[1] as string);
  // A run of links (a breadcrumb, a menu) is compared link by link; prose that links a few words, line by line.
  const linked = links.length > 1 && links.join("").length * 2 >= plainWords(block).length;
  const raw = table ? lines.flatMap((line) => line.split(/(?<!\\)\|/)) : linked ? links : lines;
  return raw.map(plainWords).filter((piece) => piece.length > 1);
}

function plainWords(text: string): string {
  return text
    .replace(/\]\([^)]*\)/g, "]")
    .replace(/<br>/g, " ")
    .replace(/[[\]*_`\\]/g, "")
    .replace(/^\s*(?:[-+]|\d+\.|>)\s+/, "")
    .replace(/\s+/g, " ")
    .trim()
    .toLowerCase();
}
