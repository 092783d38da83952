// How well the stored pages read the site: what `npm run eval -- … --pages` reports per site (Node only).
import { DEFAULT_CORPUS } from "../src/documents/default-corpus.ts";
import { sectionLink } from "../src/tools/search-documents.ts";
import type { CorporaContext } from "./corpora.ts";

/** The figures of one site's stored pages against its live HTML. */
export interface PageQuality {
  pages: number;
  chunks: number;
  /** Chunk links with a fragment (`#id` in a search result's `uri`), and how many of those ids the live page has. */
  anchors: { linked: number; found: number; unreadablePages: number };
  /** Chunks whose every line is text that most pages of the site repeat (navigation, headers, footers). */
  templateOnlyChunks: number;
  /** Pages holding any line that most pages repeat. */
  pagesWithTemplateText: number;
  /** Empty links `[](…)` printed into the Markdown. */
  emptyLinks: { pages: number; chunks: number };
  /** Pages whose content is identical to another page's (one page under two names). */
  duplicatePages: number;
  /** Which content rule the reader's order (html.ts: main, [role=main], article, else the body) finds on each live page. */
  contentRules: Record<string, number>;
}

/** A line repeated on at least this share of a site's pages is the site's template, not a page's text. */
export const TEMPLATE_SHARE = 0.5;

/** Live pages read at a time: they are local, or a user's own site. */
const CONCURRENCY = 8;

/** Measures the pages of every site in the database but the default corpus. */
export async function pageQuality(env: Env, context: CorporaContext): Promise<PageQuality> {
  const notDefault = "base_uri != ?1";
  const { results: documents } = await env.DB.prepare(`SELECT name, uri, content FROM documents WHERE ${notDefault}`)
    .bind(DEFAULT_CORPUS.baseUri)
    .all<{ name: string; uri: string; content: string }>();
  const { results: chunks } = await env.DB.prepare(
    `SELECT c.document_name AS name, d.uri AS uri, c.chunk_id AS chunkId, c.content AS content FROM chunks c JOIN documents d ON d.name = c.document_name WHERE d.${notDefault}`,
  )
    .bind(DEFAULT_CORPUS.baseUri)
    .all<{ name: string; uri: string; chunkId: string; content: string }>();

  const template = templateLines(documents.map((document) => document.content));
  const isTemplateOnly = (content: string) => {
    const lines = contentLines(content).slice(1); // the first line is the chunk's heading path
    return lines.length > 0 && lines.every((line) => template.has(line));
  };
  // Code may say `operator[](int i)` or `[](void*) {…}` (a C++ lambda): only prose is looked at.
  const emptyLinkPattern = /\[\]\([^)]*\)/;
  const emptyLink = { test: (markdown: string) => emptyLinkPattern.test(withoutCode(markdown)) };
  const contents = new Map<string, number>();
  for (const document of documents) contents.set(document.content, (contents.get(document.content) ?? 0) + 1);

  const live = await readLivePages(documents.map((document) => document.uri), context);
  const anchors = { linked: 0, found: 0, unreadablePages: [...live.values()].filter((page) => page === undefined).length };
  for (const chunk of chunks) {
    const link = sectionLink(chunk.uri, chunk.chunkId);
    const hash = link.indexOf("#");
    if (hash === -1) continue;
    const page = live.get(chunk.uri);
    if (!page) continue;
    anchors.linked += 1;
    if (page.ids.has(decodeFragment(link.slice(hash + 1)))) anchors.found += 1;
  }
  const contentRules: Record<string, number> = {};
  for (const page of live.values()) if (page) contentRules[page.rule] = (contentRules[page.rule] ?? 0) + 1;

  return {
    pages: documents.length,
    chunks: chunks.length,
    anchors,
    templateOnlyChunks: chunks.filter((chunk) => isTemplateOnly(chunk.content)).length,
    pagesWithTemplateText: documents.filter((document) => contentLines(document.content).some((line) => template.has(line))).length,
    emptyLinks: {
      pages: documents.filter((document) => emptyLink.test(document.content)).length,
      chunks: chunks.filter((chunk) => emptyLink.test(chunk.content)).length,
    },
    duplicatePages: documents.filter((document) => (contents.get(document.content) ?? 0) > 1).length,
    contentRules,
  };
}

/** Markdown without its fenced code blocks, and with a word for each inline code span (`` [`x`](…) `` is a link with text). */
function withoutCode(markdown: string): string {
  return markdown.replace(/^([ \t]*)(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:^\1?[ \t]*\2[ \t]*$|(?![\s\S]))/gm, "").replace(/`+[^`\n]*`+/g, "code");
}

/** A page's Markdown as comparable lines: link targets, list marks and emphasis dropped, spacing squashed. */
function contentLines(markdown: string): string[] {
  return markdown
    .split("\n")
    .map((line) =>
      line
        .replace(/\]\([^)]*\)/g, "]")
        .replace(/[[\]*_`\\]/g, "")
        .replace(/^\s*(?:[-+]|\d+\.|#+|>|\|)\s*/, "")
        .replace(/\s+/g, " ")
        .trim(),
    )
    .filter((line) => line.length > 1);
}

/** The lines at least TEMPLATE_SHARE of the pages hold (a site of fewer than 4 pages has no measurable template). */
function templateLines(pages: readonly string[]): Set<string> {
  const counts = new Map<string, number>();
  for (const page of pages) for (const line of new Set(contentLines(page))) counts.set(line, (counts.get(line) ?? 0) + 1);
  const floor = Math.max(3, Math.ceil(pages.length * TEMPLATE_SHARE));
  return new Set([...counts].filter(([, count]) => pages.length >= 4 && count >= floor).map(([line]) => line));
}

function decodeFragment(fragment: string): string {
  try {
    return decodeURIComponent(fragment);
  } catch {
    return fragment;
  }
}

interface LivePage {
  /** Every `id` and `name` attribute value: the fragments a browser can scroll to. */
  ids: Set<string>;
  rule: string;
}

/** Each page's live HTML, read once; undefined where it could not be read. */
async function readLivePages(uris: readonly string[], context: CorporaContext): Promise<Map<string, LivePage | undefined>> {
  const pages = new Map<string, LivePage | undefined>();
  let next = 0;
  const worker = async () => {
    while (next < uris.length) {
      const uri = uris[next++] as string;
      pages.set(uri, await readLivePage(context.liveUrl(uri)));
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return pages;
}

async function readLivePage(url: string): Promise<LivePage | undefined> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(30_000) });
    if (!response.ok) return undefined;
    const html = await response.text();
    const ids = new Set<string>();
    for (const match of html.matchAll(/\s(?:id|name)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/gi)) ids.add(decodeEntities(match[1] ?? match[2] ?? match[3] ?? ""));
    return { ids, rule: contentRule(html) };
  } catch {
    return undefined;
  }
}

function decodeEntities(text: string): string {
  return text.replace(/&amp;/g, "&").replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">");
}

/** The rule the reader's order finds first on the page (html.ts mainContent), told from the tags alone. */
function contentRule(html: string): string {
  if (/<main[\s>]/i.test(html)) return "main";
  if (/\srole\s*=\s*["']?main\b/i.test(html)) return "[role=main]";
  const articles = html.match(/<article[\s>]/gi)?.length ?? 0;
  if (articles > 0) return articles > 1 ? "the articles' holder" : "article";
  return "whole body";
}
