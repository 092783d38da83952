/**
 * Real documentation sites are not plain Markdown: their sources carry the
 * site generator's own syntax (Liquid/Jekyll tags, Go templates, code-excerpt
 * processing instructions, MDX imports and JSX components, raw HTML). Left
 * in, it is indexed as words and shown to models as noise. This module strips
 * it while keeping everything a reader sees: prose, code blocks, tables and
 * the text inside admonitions and components.
 */
import { removeHiddenHtml } from "./hidden-html.ts";
import { markdownLines } from "./page.ts";

/** What was removed from a page, by kind, for the ingestion report. */
export type MarkupCounts = Partial<Record<MarkupKind, number>>;

export type MarkupKind =
  | "Liquid tags"
  | "template expressions"
  | "processing instructions"
  | "HTML comments"
  | "MDX imports/exports"
  | "component tags"
  | "HTML tags"
  | "attribute lists"
  | "admonition markers"
  | "hidden HTML elements"
  | "invisible characters";

/** A page body without site markup, and what was removed. */
interface CleanedBody {
  body: string;
  removed: MarkupCounts;
}

/** `{% comment %}…{% endcomment %}` hides its content from the rendered page, so the content goes too. */
const LIQUID_COMMENT = /\{%-?\s*comment\s*-?%\}[\s\S]*?\{%-?\s*endcomment\s*-?%\}/g;
/** A tag or expression never spans a blank line, so a stray `{%` in a sample cannot swallow the page up to the next `%}`. */
const LIQUID_TAG = /\{%-?(?:(?!\n[ \t]*\n)[\s\S])*?-?%\}/g;
/** Go templates' `{{raw "<"}}` and `{{raw `…`}}` print their argument: keep it. */
const RAW_EXPRESSION = /\{\{-?\s*raw\s+(?:"((?:[^"\\]|\\.)*)"|`([^`]*)`)\s*-?\}\}/g;
const TEMPLATE_EXPRESSION = /\{\{(?:(?!\n[ \t]*\n)[\s\S])*?\}\}/g;
/** A Go template action with a `raw string` argument (`{{code "x.go" `/start/`}}`): its backticks are not inline code. */
// Arguments are separated by spaces or one line break, never a blank line, so an unclosed `{{code` scans at most its paragraph.
const TEMPLATE_ACTION_WITH_RAW_STRING = /\{\{-?[ \t]*[a-z]\w*(?:(?:[ \t]+|[ \t]*\n[ \t]*)(?:"(?:[^"\\\n]|\\.)*"|`[^`]*`|[^\s{}`"]+))*?[ \t]*-?\}\}/g;
const PROCESSING_INSTRUCTION = /<\?[\s\S]*?\?>/g;
const HTML_COMMENT = /<!--[\s\S]*?-->/g;
const MDX_STATEMENT = /^(?:import\s[^\n]*?(?:from\s+)?["'][^"'\n]+["'];?|export\s+(?:default\s|const\s|let\s|function\s)[^\n]*)[ \t]*$/gm;
/** `<style>` and `<script>` bodies are not text a reader sees. */
const INVISIBLE_ELEMENT = /<(style|script)\b[^>]*>[\s\S]*?<\/\1\s*>/gi;
/** `<a id="x"></a>` right before a heading names that heading's anchor (go.dev does this). */
const ANCHOR_BEFORE_HEADING = /^<a\s+(?:id|name)="([^"]+)"\s*>\s*<\/a>[ \t]*\n(#{1,6}[ \t]+[^\n]*?)[ \t]*$/gm;
/** `<h2 id="x">Text</h2>` on its own line is a heading like `## Text {#x}`. */
const HTML_HEADING = /^[ \t]*<h([1-6])(?:\s+[^>]*?\bid="([^"]+)")?[^>]*>([\s\S]*?)<\/h\1>[ \t]*$/gim;
/**
 * A JSX component tag (capitalised) with attributes, self-closing, closing,
 * or alone on its line; `List<String>` in running text is not one. Its
 * `title` attribute is visible text.
 */
const COMPONENT_TAG = /<[A-Z][\w.]*\s[^<>]*>|<[A-Z][\w.]*\/>|<\/[A-Z][\w.]*>|^[ \t]*<[A-Z][\w.]*>[ \t]*$/gm;
/**
 * Tags of real HTML elements only: `<name>` or `<module-path>` in prose are
 * placeholders a reader is meant to see.
 */
const HTML_TAG = new RegExp(
  `</?(?:${"a abbr article aside b blockquote br button caption center cite code col colgroup dd del details dfn div dl dt em figcaption figure font footer h[1-6] header hr i iframe img input ins kbd label li main mark nav ol p picture pre q s samp section small source span strong sub summary sup table tbody td tfoot th thead time tr u ul var video wbr"
    .split(" ")
    .join("|")})(?:\\s[^<>]*)?/?>`,
  "gi",
);
/** kramdown's `{:.class}` / `{: target="_blank"}` attribute lists. */
const ATTRIBUTE_LIST = /\{:[^}\n]*\}/g;
/** `:::note`, `:::tip Title`, `:::` lines of admonitions (Docusaurus, dart.dev): the text between stays. */
const ADMONITION_MARKER = /^[ \t]*:::[ \t]*([\w-]*)[ \t]*(.*)$/gm;
/** dart.dev highlights code with `[!word!]`; the brackets are not code. */
const CODE_HIGHLIGHT = /\[!([\s\S]*?)!\]/g;

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " ", mdash: "—", ndash: "–", hellip: "…", rarr: "→", larr: "←", times: "×" };

/**
 * Strips site-generator markup from a Markdown body outside code: code
 * fences and inline code spans are kept byte for byte (a `{{name}}` in a
 * template sample is content), except dart.dev's `[!…!]` highlight marks.
 *
 * @example cleanSiteMarkup("Hi {{site.url}}<?code-excerpt \"a.dart\"?>").body // "Hi "
 */
export function cleanSiteMarkup(body: string): CleanedBody {
  const removed: MarkupCounts = {};
  const count = (kind: MarkupKind, n = 1) => {
    removed[kind] = (removed[kind] ?? 0) + n;
  };
  const output: string[] = [];
  let prose: string[] = [];
  const flushProse = () => {
    if (prose.length > 0) output.push(cleanProse(prose.join("\n"), count));
    prose = [];
  };
  for (const line of markdownLines(body)) {
    if (!line.inFence) {
      prose.push(line.text);
      continue;
    }
    flushProse();
    output.push(line.text.replace(CODE_HIGHLIGHT, "$1"));
  }
  flushProse();
  return { body: output.join("\n").trim(), removed };
}

function cleanProse(text: string, count: (kind: MarkupKind, n?: number) => void): string {
  const strip = (input: string, pattern: RegExp, kind: MarkupKind, replacement: string | ((...groups: string[]) => string) = "") =>
    input.replace(pattern, (...match: string[]) => {
      count(kind);
      return typeof replacement === "string" ? replacement : replacement(...match);
    });
  // Go template actions first: their raw-string arguments hold backticks that are not inline code.
  let out = strip(text, RAW_EXPRESSION, "template expressions", (_m, quoted, backticked) => quoted ?? backticked ?? "");
  out = out.replace(TEMPLATE_ACTION_WITH_RAW_STRING, (action) => {
    if (!action.includes("`")) return action; // left for the passes below, which spare inline code
    count("template expressions");
    return "";
  });
  // Inline code is set aside, so `{% if %}`, `<!--` or `{{name}}` written as code stay as they are.
  const { text: masked, restore } = maskInlineCode(out);
  // Order matters: comments hide tags, and tags may hold `}}` or `>`.
  out = strip(masked, HTML_COMMENT, "HTML comments");
  out = strip(out, LIQUID_COMMENT, "Liquid tags");
  out = strip(out, PROCESSING_INSTRUCTION, "processing instructions");
  out = strip(out, LIQUID_TAG, "Liquid tags");
  out = strip(out, MDX_STATEMENT, "MDX imports/exports");
  out = strip(out, INVISIBLE_ELEMENT, "HTML tags");
  const hidden = removeHiddenHtml(out);
  if (hidden.removed > 0) count("hidden HTML elements", hidden.removed);
  out = hidden.text;
  out = strip(out, ANCHOR_BEFORE_HEADING, "HTML tags", (_m, id, heading) => (/\{#[^}]*\}\s*$/.test(heading ?? "") ? `${heading}` : `${heading} {#${id}}`));
  out = strip(out, HTML_HEADING, "HTML tags", (_m, level, id, inner) => {
    const inside = (inner ?? "").replace(HTML_TAG, "").replace(/\s+/g, " ").trim();
    return `${"#".repeat(Number(level))} ${inside}${id ? ` {#${id}}` : ""}`;
  });
  out = strip(out, TEMPLATE_EXPRESSION, "template expressions");
  out = strip(out, COMPONENT_TAG, "component tags", (tag) => {
    const title = /\btitle="([^"]*)"/.exec(tag)?.[1];
    return title ? `**${title}** ` : "";
  });
  out = strip(out, HTML_TAG, "HTML tags");
  out = strip(out, ATTRIBUTE_LIST, "attribute lists");
  out = out.replace(/&(#\d+|#x[0-9a-f]+|[a-z]+);/gi, (entity, code: string) => decodeEntity(code) ?? entity);
  out = strip(out, ADMONITION_MARKER, "admonition markers", (_m, _kind, title) => (title?.trim() ? `**${title.trim()}**` : ""));
  // Lines that held only markup become blank; trailing spaces and piled-up blank lines left behind are noise.
  return restore(withoutTrailingBlanks(out).replace(/\n{3,}/g, "\n\n"));
}

/**
 * Each line without its trailing spaces and tabs. Not `/[ \t]+$/gm`: that regex
 * retries from every space of a run that does not end its line, which took
 * 15 minutes on a 5 MB page of padded table cells (Python's genindex-all).
 */
function withoutTrailingBlanks(text: string): string {
  return text
    .split("\n")
    .map((line) => {
      let end = line.length;
      while (end > 0 && (line[end - 1] === " " || line[end - 1] === "\t")) end--;
      return end === line.length ? line : line.slice(0, end);
    })
    .join("\n");
}

/** A character no Markdown source holds, marking where an inline code span was set aside. */
const MASK = "\u{F0000}";

/** Replaces each inline code span (`` `…` ``) with a marker, and gives the function that puts them back. */
function maskInlineCode(text: string): { text: string; restore: (masked: string) => string } {
  const spans: string[] = [];
  const masked = text.replace(/`+[^`]*?`+/g, (span) => `${MASK}${spans.push(span) - 1}${MASK}`);
  const marker = new RegExp(`${MASK}(\\d+)${MASK}`, "gu");
  return { text: masked, restore: (out) => out.replace(marker, (_m, index: string) => spans[Number(index)] ?? "") };
}

function decodeEntity(code: string): string | undefined {
  const point = /^#x/i.test(code) ? Number.parseInt(code.slice(2), 16) : code.startsWith("#") ? Number(code.slice(1)) : null;
  if (point === null) return ENTITIES[code.toLowerCase()];
  // &#1114112; names no character: it is left as written rather than failing the page.
  return point > 0 && point <= 0x10ffff ? String.fromCodePoint(point) : undefined;
}

/**
 * A one-line summary of what was cleaned, e.g. "12 processing instructions,
 * 3 Liquid tags"; "" when nothing was.
 */
export function describeMarkupCounts(counts: MarkupCounts): string {
  return Object.entries(counts)
    .filter(([, n]) => (n ?? 0) > 0)
    .map(([kind, n]) => `${n} ${kind}`)
    .join(", ");
}
