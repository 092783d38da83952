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

/** Counts kept between a run's pieces: the most repeated only, so the state stays small (a Workflow step's result is at most 1 MiB). */
const KEPT_COUNTS = 400;

/** A piece is compared by its first characters: enough to tell pieces apart, and 400 of them stay under 100 KB. */
const PIECE_CHARS = 200;

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

  /** True once it has seen enough pages to call anything template. */
  get learnt(): boolean {
    return this.pages >= MIN_PAGES;
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
   * site puts its navigation; a block in the middle is the article's, and so
   * is a heading, unless it is a title every page repeats at the top or
   * heads nothing once the bottom's navigation is gone. A page that would be
   * left empty is kept as it was.
   */
  strip(markdown: string, ownUrl?: string): { markdown: string; stripped: boolean } {
    const blocks = blocksOf(markdown);
    // A rule between the navigation and the article (`---`) goes with the navigation; so does the page's own
    // table of contents, a list of links to its sections, which repeats what the headings say.
    const strippable = (block: string) => RULE.test(block) || this.isTemplate(block) || (ownUrl !== undefined && isContentsList(block, ownUrl));
    let first = 0;
    let last = blocks.length;
    // At the top, a title every page repeats is the site's banner ("# Node.js v18 documentation"), not the page's own.
    while (first < last && (strippable(blocks[first] as string) || this.isBanner(blocks[first] as string))) first += 1;
    while (last > first && strippable(blocks[last - 1] as string)) last -= 1;
    if (first === 0 && last === blocks.length) return { markdown, stripped: false };
    // A heading left with nothing under it headed only the navigation (Git's "GIT: Part of the git(1) suite").
    if (last < blocks.length) while (last > first && HEADING.test(blocks[last - 1] as string)) last -= 1;
    if (first === last) return { markdown, stripped: false };
    return { markdown: blocks.slice(first, last).join("\n\n"), stripped: true };
  }

  /** What the next piece of the run needs. */
  toState(): TemplateState {
    const counts = [...this.counts].filter(([, count]) => count > 1).sort((a, b) => b[1] - a[1]).slice(0, KEPT_COUNTS);
    return { pages: this.pages, counts };
  }

  private isBanner(block: string): boolean {
    return this.pages >= MIN_PAGES && block.startsWith("# ") && !block.includes("\n") && (this.counts.get(plainWords(block).slice(0, PIECE_CHARS)) ?? 0) >= this.floor();
  }

  private floor(): number {
    return Math.max(3, Math.ceil(this.pages * TEMPLATE_SHARE));
  }

  private isTemplate(block: string): boolean {
    if (this.pages < MIN_PAGES || HEADING.test(block) || block.startsWith("```")) return false;
    const pieces = piecesOf(block);
    if (pieces.length === 0) return false;
    const floor = this.floor();
    const common = pieces.filter((piece) => (this.counts.get(piece) ?? 0) >= floor).length;
    return common / pieces.length >= BLOCK_TEMPLATE_SHARE;
  }
}

const HEADING = /^#{1,6}\s/;

const LIST_LINK = /^\s*(?:[-*+]|\d+\.)\s+\[.*\]\((\S+?)\)\s*$/;

/** True for a list whose every item is a link to a section of the page at `ownUrl`. */
function isContentsList(block: string, ownUrl: string): boolean {
  return block.split("\n").every((line) => LIST_LINK.exec(line)?.[1]?.startsWith(`${ownUrl}#`) === true);
}
/** A thematic break, Markdown's `<hr>`. */
const RULE = /^\s*(?:-{3,}|\*{3,}|_{3,})\s*$/;

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
  return raw.map((piece) => plainWords(piece).slice(0, PIECE_CHARS)).filter((piece) => piece.length > 1);
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
