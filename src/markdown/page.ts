import { parse as parseToml } from "smol-toml";
import { parse as parseYaml } from "yaml";
import { splitMetadata, type MetadataFormat } from "./front-matter.ts";

/** A Markdown page split into its front matter and body. */
interface MarkdownPage {
  frontMatter: Record<string, unknown>;
  body: string;
}

const METADATA_PARSERS: Record<MetadataFormat, { label: string; parse: (source: string) => unknown }> = {
  yaml: { label: "YAML", parse: (source) => parseYaml(source) },
  toml: { label: "TOML", parse: (source) => parseToml(source) },
  json: { label: "JSON", parse: (source) => JSON.parse(source) },
};

/**
 * Splits the metadata block (YAML `---`, TOML `+++`, or go.dev's JSON in an
 * HTML comment) from a Markdown page. Throws a plain Error with the parser's
 * message when the block is not a mapping of keys to values.
 */
export function parseMarkdownPage(text: string): MarkdownPage {
  const split = splitMetadata(text);
  if (!split) return { frontMatter: {}, body: text.replace(/^\uFEFF/, "") };
  const { label, parse } = METADATA_PARSERS[split.format];
  const data: unknown = parse(split.source);
  if (data !== null && data !== undefined && (typeof data !== "object" || Array.isArray(data))) {
    throw new Error(`front matter must be a ${label} mapping of keys to values`);
  }
  return { frontMatter: (data ?? {}) as Record<string, unknown>, body: split.body };
}

/** A line that opens or closes a fenced code block, with its fence marker. */
function fenceMarker(line: string): string | null {
  const match = /^ {0,3}(`{3,}|~{3,})/.exec(line);
  return match?.[1] ?? null;
}

/** One line of a Markdown body, knowing whether it sits inside a code fence. */
export interface MarkdownLine {
  text: string;
  inFence: boolean;
  /** `id` is the heading's explicit anchor (`## Intro {#intro}`), when it has one. */
  heading?: { level: number; text: string; id?: string };
}

/**
 * Classifies each line of a Markdown body, so callers can split at headings
 * and blank lines without ever cutting a code block in two.
 */
export function markdownLines(body: string): MarkdownLine[] {
  const lines: MarkdownLine[] = [];
  let openFence: string | null = null;
  for (const text of body.split(/\r?\n/)) {
    const marker = fenceMarker(text);
    if (openFence) {
      lines.push({ text, inFence: true });
      if (marker && marker[0] === openFence[0] && marker.length >= openFence.length) openFence = null;
      continue;
    }
    if (marker) {
      openFence = marker;
      lines.push({ text, inFence: true });
      continue;
    }
    // The closing `#`s and spaces are trimmed by hand: a lazy `(.+?)[ \t#]*$` backtracks over long lines of spaces.
    const heading = /^ {0,3}(#{1,6})[ \t]+(.*)$/.exec(text);
    const headingText = heading?.[2]?.replace(/[ \t#]+$/, "");
    if (heading?.[1] && headingText) {
      const id = EXPLICIT_ID.exec(headingText)?.[1];
      const parsed = { level: heading[1].length, text: cleanHeading(headingText) };
      lines.push({ text, inFence: false, heading: id ? { ...parsed, id } : parsed });
    } else {
      lines.push({ text, inFence: false });
    }
  }
  return lines;
}

/** A heading's trailing `{#anchor}` (kramdown, Hugo, Docusaurus, go.dev), possibly with classes after it. */
const EXPLICIT_ID = /\{#([\w.:-]+)[^}]*\}\s*$/;

/** Heading text without inline Markdown, a trailing `{#anchor}` or `{:.class}` attribute list. */
function cleanHeading(text: string): string {
  return text
    .replace(/\s*\{[#:][^}]*\}\s*$/, "")
    .replace(/`([^`]*)`/g, "$1")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    // Emphasis: `*` anywhere, `_` only at word edges, so claude_desktop_config.json keeps its underscores.
    .replace(/\*{1,3}([^*]+)\*{1,3}/g, "$1")
    .replace(/(^|[^\p{L}\p{N}_])_{1,3}([^_]+)_{1,3}(?![\p{L}\p{N}_])/gu, "$1$2")
    .trim();
}

/**
 * The anchor a heading gets on GitHub-style sites: lower case, punctuation
 * dropped, spaces to hyphens.
 *
 * @example headingSlug("Handling Futures!") // "handling-futures"
 */
export function headingSlug(text: string): string {
  const slug = text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .trim()
    .replace(/\s+/g, "-");
  return slug || "section";
}

/**
 * `text` cut to at most `max` characters at the last line break that fits,
 * so a table row or a line of code is never cut in two; a first line longer
 * than `max` is cut at `max`. Returns the text unchanged when it fits.
 *
 * @example cutAtLine("a\nbb\nccc", 5) // "a\nbb"
 */
export function cutAtLine(text: string, max: number): string {
  if (text.length <= max) return text;
  const breakAt = text.lastIndexOf("\n", max);
  return breakAt > 0 ? text.slice(0, breakAt) : text.slice(0, max);
}
