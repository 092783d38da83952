/**
 * The YAML front matter block at the top of a Markdown file, shared by the
 * documentation pages and the query-library entries so both read the same
 * files the same way. Parsing and validating the YAML is each caller's own.
 */

/** A byte-order mark, then `---` lines around the YAML; either line ending; spaces after a delimiter. */
const FRONT_MATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** A file's front matter text, unparsed, and the body after its closing `---`. */
export interface FrontMatterSplit {
  yaml: string;
  body: string;
}

/**
 * Splits the front matter block from a Markdown file; null when the file does
 * not start with one.
 *
 * @example splitFrontMatter("---\ntitle: Hi\n---\nText") // { yaml: "title: Hi", body: "Text" }
 */
export function splitFrontMatter(text: string): FrontMatterSplit | null {
  const match = FRONT_MATTER.exec(text);
  if (!match) return null;
  return { yaml: match[1] ?? "", body: text.slice(match[0].length) };
}
