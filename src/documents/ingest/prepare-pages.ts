import { sha256Hex } from "../../hash.ts";
import { chunkDocument, type Chunk } from "./chunk-page.ts";
import { markdownLines, parseMarkdownPage } from "../../markdown/page.ts";
import { cleanSiteMarkup, type MarkupCounts } from "../../markdown/site-markup.ts";
import { removeInvisible } from "../../text/invisible.ts";
import { PAGE_EXTENSION, documentNameForUri, normalizeBaseUri, pageUri } from "../names.ts";
import { versionLabel, type SiteVersion } from "../versions.ts";

/** Where a folder of pages is published: its base URI, the data source it reports and, for a versioned site, which version it is. */
export interface Site {
  baseUri: string;
  dataSource: string;
  /** Absent: unversioned pages, as before versions existed (src/documents/versions.ts). */
  version?: SiteVersion;
}

/** A page ready to store: the document fields plus its chunks. */
export interface PreparedDocument {
  name: string;
  uri: string;
  title: string;
  description: string;
  content: string;
  dataSource: string;
  /** The version label, '' when unversioned. */
  version: string;
  contentLengthBytes: number;
  /** SHA-256 of everything stored, so unchanged pages keep their updateTime. */
  contentHash: string;
  chunks: Chunk[];
  /** The source file, relative to its folder, and the site markup removed from it (neither is stored). */
  path: string;
  markupRemoved: MarkupCounts;
}

/** A page the ingester refused, with the reason a person can act on. */
export class PageError extends Error {
  readonly path: string;

  constructor(path: string, reason: string) {
    super(`${path}: ${reason}`);
    this.name = "PageError";
    this.path = path;
  }
}

/**
 * Checks a `--base-uri` (and a `--version` label) and derives the site; the
 * data source defaults to the host. Throws a plain Error saying what a valid
 * base URI or label looks like.
 *
 * @example siteFor("https://docs.example.com/v2", undefined, { label: "v2", current: true })
 */
export function siteFor(baseUri: string, dataSource?: string, version?: SiteVersion): Site {
  let url: URL;
  try {
    url = new URL(baseUri);
  } catch {
    throw new Error(`--base-uri "${baseUri}" is not a URL; give one like https://docs.example.com or https://example.com/docs`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new Error(`--base-uri "${baseUri}" must start with https:// or http://`);
  }
  if (url.search || url.hash) throw new Error(`--base-uri "${baseUri}" must not have a query or fragment`);
  const site = { baseUri: normalizeBaseUri(`${url.origin}${url.pathname}`), dataSource: dataSource ?? url.host };
  return version ? { ...site, version: { label: versionLabel(version.label), current: version.current } } : site;
}

/**
 * Turns one Markdown file into a document; null when the page has no content
 * to index. Throws PageError saying why a malformed page cannot be ingested.
 * Every reader's pages come through here: invisible characters go first,
 * from the front matter (title, description) and the body alike.
 */
export async function prepareDocument(relativePath: string, text: string, site: Site): Promise<PreparedDocument | null> {
  const visible = removeInvisible(text);
  let page;
  try {
    page = parseMarkdownPage(visible.text);
  } catch (error) {
    throw new PageError(relativePath, `invalid front matter: ${error instanceof Error ? error.message : String(error)}`);
  }
  const { body: content, removed } = cleanSiteMarkup(page.body);
  if (visible.removed > 0) removed["invisible characters"] = visible.removed;
  const title = frontMatterString(relativePath, page.frontMatter, "title") ?? firstHeading(content) ?? titleFromPath(relativePath);
  const description =
    frontMatterString(relativePath, page.frontMatter, "description") ?? frontMatterString(relativePath, page.frontMatter, "summary") ?? "";
  if (!content) return null;
  const uri = pageUri(site.baseUri, relativePath);
  const version = site.version?.label ?? "";
  // An unversioned page hashes as it always has, so existing pages keep their updateTime.
  const hashed = version ? [title, description, content, site.dataSource, version] : [title, description, content, site.dataSource];
  return {
    name: documentNameForUri(uri),
    uri,
    title,
    description,
    content,
    dataSource: site.dataSource,
    version,
    contentLengthBytes: new TextEncoder().encode(content).byteLength,
    contentHash: await sha256Hex(JSON.stringify(hashed)),
    chunks: chunkDocument(title, content),
    path: relativePath,
    markupRemoved: removed,
  };
}

/** A front-matter string by key, in any letter case: go.dev writes `Title`, most sites `title`. */
function frontMatterString(path: string, frontMatter: Record<string, unknown>, key: string): string | undefined {
  const actualKey = Object.keys(frontMatter).find((candidate) => candidate.toLowerCase() === key) ?? key;
  const value = frontMatter[actualKey];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw new PageError(path, `front matter "${actualKey}" must be a string`);
  return value.trim() || undefined;
}

/** The first H1 outside code (a `# comment` in a shell sample is not a title). */
function firstHeading(body: string): string | undefined {
  return markdownLines(body).find((line) => line.heading?.level === 1)?.heading?.text;
}

function titleFromPath(relativePath: string): string {
  const segments = relativePath.replace(PAGE_EXTENSION, "").split(/[\\/]/);
  const last = segments.pop();
  const stem = last === "index" ? (segments.pop() ?? "Home") : (last ?? "Untitled");
  return stem.replace(/[-_]+/g, " ").replace(/^\w/, (c) => c.toUpperCase());
}

/** The pages of a folder, ready to store, and the ones skipped with the reason. */
export interface PreparedSite {
  documents: PreparedDocument[];
  skipped: { path: string; reason: string }[];
}

/**
 * Prepares every page of a folder (paths relative to it). All or nothing:
 * every malformed page, and every pair of files that would publish the same
 * page (`foo.md` and `foo/index.md`), is reported at once in one Error, so a
 * person can fix them all before anything is written.
 */
export async function prepareSite(
  pages: readonly { path: string; text: string }[],
  site: Site,
  onProgress?: (prepared: number, total: number) => void,
): Promise<PreparedSite> {
  const documents: PreparedDocument[] = [];
  const skipped: PreparedSite["skipped"] = [];
  const problems: string[] = [];
  const pathOfName = new Map<string, string>();
  for (const [index, { path, text }] of pages.entries()) {
    onProgress?.(index + 1, pages.length);
    try {
      const document = await prepareDocument(path, text, site);
      if (!document) {
        skipped.push({ path, reason: "no content after the front matter and site markup" });
        continue;
      }
      const first = pathOfName.get(document.name);
      if (first) throw new PageError(path, `publishes the same page as ${first} (${document.uri}); keep one of them`);
      pathOfName.set(document.name, path);
      documents.push(document);
    } catch (error) {
      if (!(error instanceof PageError)) throw error;
      problems.push(error.message);
    }
  }
  if (problems.length > 0) throw new Error(`nothing was ingested; fix these pages and run again:\n  ${problems.join("\n  ")}`);
  return { documents, skipped };
}
