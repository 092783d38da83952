// The corpus described in llms.txt form (https://llmstxt.org), so other tools
// can read Almanac the way Almanac reads a site: per data source, its pages
// as links to their Markdown. Bounded: a corpus of any size gives a file of
// at most MAX_LLMS_LINKS links, with a note saying what is left out.
import { listVersions } from "../versions.ts";
import type { D1Reader } from "../../d1/sessions.ts";
import { timed } from "../../observability/timings.ts";
import { findDocuments } from "./stored-documents.ts";
import { hiddenParam, isVisible, noteTouched, publicViewer, visibilityFor, visibleSql, type Viewer } from "../access/visibility.ts";

/**
 * Links listed at most: about 200 KB of text, which an agent can read in one
 * request, and a listing that costs one index range scan per data source.
 */
export const MAX_LLMS_LINKS = 1_000;

/** Data sources listed at most; the others are named in a note. */
export const MAX_LLMS_SOURCES = 50;

/** A data source's pages, the first of them listed. */
interface ListedSource {
  dataSource: string;
  pages: number;
  listed: { name: string; title: string; description: string }[];
  /** Its versions, oldest first, when it has any (src/documents/versions.ts). */
  versions?: { label: string; current: boolean }[];
}

/** The corpus as /llms.txt lists it. */
interface CorpusListing {
  sources: ListedSource[];
  /** Data sources past the cap, with their page counts. */
  unlisted: { dataSource: string; pages: number }[];
  /** The caps the listing kept to, which its notes name. */
  maxLinks: number;
  maxSources: number;
}

/**
 * Every data source with its page count, largest first, and the first pages
 * of each in name order: an equal share of `maxLinks` each, so a small site
 * beside a huge one is still listed.
 */
export async function listCorpusForLlms(db: D1Reader, maxLinks = MAX_LLMS_LINKS, maxSources = MAX_LLMS_SOURCES, viewer: Viewer = publicViewer()): Promise<CorpusListing> {
  const visibility = await visibilityFor(db, viewer);
  const { results: counts } = await timed("d1", () =>
    db
      .prepare(`SELECT data_source, count(*) AS pages FROM documents AS d WHERE 1 ${visibleSql("d", visibility, "?1")} GROUP BY data_source ORDER BY pages DESC, data_source`)
      .bind(...(visibility.hidden.length > 0 ? [hiddenParam(visibility)] : []))
      .all<{ data_source: string; pages: number }>(),
  );
  const shown = counts.slice(0, maxSources);
  const share = Math.max(1, Math.floor(maxLinks / Math.max(1, shown.length)));
  const listings = shown.length === 0
    ? []
    : await timed("d1", () =>
        db.batch<{ name: string; title: string; description: string }>(
          shown.map((source) =>
            db.prepare("SELECT name, title, description FROM documents WHERE data_source = ?1 ORDER BY name LIMIT ?2").bind(source.data_source, share),
          ),
        ),
      );
  const versions = (await timed("d1", () => listVersions(db))).filter((version) => isVisible(visibility, version.dataSource));
  noteTouched(viewer, visibility, [
    ...counts.map((source) => ({ dataSource: source.data_source })),
    ...shown.flatMap((source, index) => (listings[index]?.results ?? []).map((page) => ({ dataSource: source.data_source, name: page.name }))),
  ]);
  const versionsOf = (dataSource: string) => versions.filter((version) => version.dataSource === dataSource).map(({ label, isCurrent }) => ({ label, current: isCurrent }));
  return {
    sources: shown.map((source, index) => {
      const own = versionsOf(source.data_source);
      return { dataSource: source.data_source, pages: source.pages, listed: listings[index]?.results ?? [], ...(own.length > 0 ? { versions: own } : {}) };
    }),
    unlisted: counts.slice(maxSources).map((source) => ({ dataSource: source.data_source, pages: source.pages })),
    maxLinks,
    maxSources,
  };
}

/**
 * Where a page's Markdown is served: its name with `.md` appended, from the root.
 *
 * @example markdownPath("documents/dart.dev/language/async") // "/documents/dart.dev/language/async.md"
 */
function markdownPath(name: string): string {
  return `/${name}.md`;
}

/** The document name a Markdown path serves, or null when the path is not one (no `.md`, not under /documents/). */
export function nameOfMarkdownPath(path: string): string | null {
  const match = /^\/(documents\/.+)\.md$/.exec(path);
  return match?.[1] ?? null;
}

/** A page's Markdown as served at its markdownPath, or null when there is no such page or `viewer` may not see it. */
export async function pageMarkdown(db: D1Reader, name: string, viewer: Viewer = publicViewer()): Promise<string | null> {
  const page = (await findDocuments(db, [name], viewer)).get(name);
  return page ? page.content : null;
}

/** Link text and notes on one line, with the brackets a Markdown link would break on escaped. */
function inline(text: string): string {
  return text.replace(/\s+/g, " ").trim().replace(/([[\]\\])/g, "\\$1");
}

/**
 * The llms.txt text of `listing`: the H1 is the server's name, the
 * blockquote says what the corpus holds and how to search it, and each data
 * source is an H2 whose items link to the pages' Markdown under `origin`.
 */
export function formatLlmsTxt(listing: CorpusListing, options: { serverName: string; origin: string }): string {
  const pages = [...listing.sources, ...listing.unlisted].reduce((sum, source) => sum + source.pages, 0);
  const sourceCount = listing.sources.length + listing.unlisted.length;
  const lines = [
    `# ${options.serverName}`,
    "",
    `> Developer documentation served over MCP: ${pages} pages from ${sourceCount} data source${sourceCount === 1 ? "" : "s"}. ` +
      `Each link is a page's Markdown. Search every page with the search_documents tool at ${options.origin}/mcp, ` +
      `or GET ${options.origin}/v1/documents:searchDocumentChunks?query=…`,
    "",
  ];
  for (const source of listing.sources) {
    lines.push(`## ${source.dataSource}`, "");
    if (source.versions) {
      const labels = source.versions.map((version) => (version.current ? `${version.label} (current)` : version.label)).join(", ");
      const old = source.versions.find((version) => !version.current)?.label;
      const hint = old ? `; a filter picks another, e.g. version = "${old}"` : "";
      lines.push(`Versions: ${labels}. Search and answers see the current one${hint}.`, "");
    }
    for (const page of source.listed) {
      const description = page.description ? `: ${inline(page.description)}` : "";
      lines.push(`- [${inline(page.title) || page.name}](${options.origin}${markdownPath(page.name)})${description}`);
    }
    const left = source.pages - source.listed.length;
    if (left > 0) lines.push("", `${left} more pages of ${source.dataSource} are not listed here (this file lists at most ${listing.maxLinks} pages); find them with search_documents.`);
    lines.push("");
  }
  if (listing.unlisted.length > 0) {
    lines.push("## More data sources", "", `Not listed here (this file lists at most ${listing.maxSources} data sources); find their pages with search_documents:`, "");
    for (const source of listing.unlisted) lines.push(`- ${source.dataSource}: ${source.pages} pages`);
    lines.push("");
  }
  return lines.join("\n");
}
