// What a search hit shows a person: the section it comes from and a short
// passage of its text with the query's words marked.
import { queryWords, stem } from "../documents/search/query-text.ts";

/** A piece of a snippet; `hit` pieces are words of the query. */
interface SnippetPart {
  text: string;
  hit: boolean;
}

/** About three lines on a desktop, six on a phone: enough to judge a hit, short enough to scan ten. */
const SNIPPET_CHARS = 280;
/** Text kept before the first marked word, so it is read in its sentence. */
const LEAD_CHARS = 60;

const WORD = /[\p{L}\p{N}]+/gu;

/**
 * The heading path of a chunk below its page title ("Quotas > Limits"), or
 * "" for the lead of a page. A chunk's content starts with
 * "Title > Heading > …" on its own line (src/documents/ingest/chunk-page.ts).
 *
 * @example sectionHeading("Filters > Fields\n\nText", "Filters") // "Fields"
 */
export function sectionHeading(content: string, title: string): string {
  const firstLine = content.split("\n", 1)[0] ?? "";
  return firstLine.startsWith(`${title} > `) ? firstLine.slice(title.length + 3) : "";
}

/**
 * A chunk's text as a sentence reads, without its heading line and with
 * Markdown's punctuation dropped (fences, heading marks, emphasis, link
 * targets, table rules), whitespace made single spaces.
 */
export function plainText(content: string): string {
  const body = content.includes("\n\n") ? content.slice(content.indexOf("\n\n") + 2) : content;
  return body
    .replace(/^\s*(```|~~~).*$/gm, " ")
    .replace(/^\s*\|?[\s:|-]*-[\s:|-]*$/gm, " ")
    .replace(/^\s{0,3}#{1,6}\s+/gm, "")
    .replace(/^\s*>\s?/gm, "")
    .replace(/^\s*(?:[*+-]|\d+\.)\s+/gm, "")
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\*\*|__|`/g, "")
    .replace(/\s*\|\s*/g, " · ")
    .replace(/\s+/g, " ")
    // Table cells read as a list: one separator between cells, none at the ends of the text.
    .replace(/(?: ?· ?){2,}/g, " · ")
    .replace(/^ ?· ?| ?· ?$/g, "")
    .trim();
}

/**
 * The passage of `content` (at most SNIPPET_CHARS, cut between words) that
 * holds the most of the query's words, split into parts with those words
 * marked. Words match by Porter stem, as search matches them, so "quotas"
 * marks "quota".
 *
 * @example highlightedSnippet("T\n\nKeys raise the quota.", "quotas").filter((p) => p.hit) // [{ text: "quota", hit: true }]
 */
export function highlightedSnippet(content: string, query: string, maxChars = SNIPPET_CHARS): SnippetPart[] {
  const text = plainText(content);
  const stems = new Set(queryWords(query).map(stem));
  const hits = [...text.matchAll(WORD)].filter((match) => stems.has(stem(match[0]))).map((match) => ({ start: match.index, end: match.index + match[0].length }));
  const [from, to] = passage(text, hits, maxChars);
  const parts: SnippetPart[] = [];
  const push = (part: string, hit: boolean) => part && parts.push({ text: part, hit });
  let cursor = from;
  push(from > 0 ? "…" : "", false);
  for (const hit of hits) {
    if (hit.start < from || hit.end > to) continue;
    push(text.slice(cursor, hit.start), false);
    push(text.slice(hit.start, hit.end), true);
    cursor = hit.end;
  }
  push(text.slice(cursor, to), false);
  push(to < text.length ? "…" : "", false);
  return mergeAdjacent(parts);
}

/** The [from, to) range of the passage: the window with the most marked words, widened to word boundaries. */
function passage(text: string, hits: { start: number; end: number }[], maxChars: number): [number, number] {
  if (text.length <= maxChars) return [0, text.length];
  let best = 0;
  let bestCount = 0;
  for (const hit of hits) {
    const start = Math.max(0, hit.start - LEAD_CHARS);
    const count = hits.filter((other) => other.start >= start && other.end <= start + maxChars).length;
    if (count > bestCount) [best, bestCount] = [start, count];
  }
  let from = best;
  if (from > 0) {
    const space = text.indexOf(" ", from);
    from = space === -1 || space > from + LEAD_CHARS ? from : space + 1;
  }
  let to = Math.min(text.length, from + maxChars);
  if (to < text.length) {
    const space = text.lastIndexOf(" ", to);
    to = space > from ? space : to;
  }
  return [from, to];
}

function mergeAdjacent(parts: SnippetPart[]): SnippetPart[] {
  const merged: SnippetPart[] = [];
  for (const part of parts) {
    const last = merged[merged.length - 1];
    if (last && last.hit === part.hit && !part.hit) last.text += part.text;
    else merged.push({ ...part });
  }
  return merged;
}
