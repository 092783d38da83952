/**
 * The metadata block at the top of a Markdown file, shared by the
 * documentation pages and the query-library entries so both read the same
 * files the same way. Parsing and validating the metadata is each caller's own.
 */

/** A byte-order mark, then `---` lines around the YAML; either line ending; spaces after a delimiter. */
const FRONT_MATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;
/** Hugo's TOML front matter: the same shape with `+++` lines. */
const TOML_FRONT_MATTER = /^\uFEFF?\+\+\+[ \t]*\r?\n([\s\S]*?)\r?\n\+\+\+[ \t]*(?:\r?\n|$)/;
/** The Go website's metadata: a JSON object in the HTML comment that opens the page (`<!--{ "Title": … }-->`). */
const JSON_COMMENT_FRONT_MATTER = /^\uFEFF?<!--(\{[\s\S]*?\})-->[ \t]*(?:\r?\n|$)/;

/** A file's front matter text, unparsed, and the body after its closing `---`. */
interface FrontMatterSplit {
  yaml: string;
  body: string;
}

/**
 * Splits the YAML front matter block from a Markdown file; null when the file
 * does not start with one.
 *
 * @example splitFrontMatter("---\ntitle: Hi\n---\nText") // { yaml: "title: Hi", body: "Text" }
 */
export function splitFrontMatter(text: string): FrontMatterSplit | null {
  const match = FRONT_MATTER.exec(text);
  if (!match) return null;
  return { yaml: match[1] ?? "", body: text.slice(match[0].length) };
}

/** The metadata formats documentation sites put at the top of a page. */
export type MetadataFormat = "yaml" | "toml" | "json";

/** A page's metadata block, unparsed, in whichever format the site uses. */
interface MetadataSplit {
  format: MetadataFormat;
  source: string;
  body: string;
}

/**
 * Splits a page's metadata block: YAML between `---` lines (Jekyll, Docusaurus,
 * most sites), TOML between `+++` lines (Hugo), or a JSON object in a leading
 * HTML comment (go.dev). Null when the page starts with none of them.
 *
 * @example splitMetadata('<!--{"Title": "Go"}-->\nText') // { format: "json", source: '{"Title": "Go"}', body: "Text" }
 */
export function splitMetadata(text: string): MetadataSplit | null {
  const yaml = splitFrontMatter(text);
  if (yaml) return { format: "yaml", source: yaml.yaml, body: yaml.body };
  for (const [format, pattern] of [["toml", TOML_FRONT_MATTER], ["json", JSON_COMMENT_FRONT_MATTER]] as const) {
    const match = pattern.exec(text);
    if (match) return { format, source: match[1] ?? "", body: text.slice(match[0].length) };
  }
  return null;
}
