// The llms.txt reader (https://llmstxt.org): an llms.txt's linked pages,
// each fetched as Markdown, or an llms-full.txt split into its pages. The
// result is a folder of pages for prepareSite, paths relative to the file's
// origin. Runs in a Worker as in the CLI: fetch and Web Streams only.
import { headingSlug, markdownLines } from "../markdown/page.ts";
import { CONTROL_CHARACTERS } from "../text/invisible.ts";
import { pageUri } from "../documents/names.ts";
import { FetchProblem, type Fetcher, fetchWithin, readTextWithin, withConcurrency } from "./http.ts";

/** The bounds of one llms.txt read; each is reported when it binds. */
interface LlmsLimits {
  /** Pages fetched at most; the links past it are reported, not fetched. */
  maxPages: number;
  /** Bytes one page (or the llms.txt itself) may have. */
  maxPageBytes: number;
  /** Bytes fetched in total; the pages past it are reported, not fetched. */
  maxTotalBytes: number;
  /** Milliseconds one request may take, body included. */
  timeoutMs: number;
  /** Requests at once: a few, so a documentation host is never hammered. */
  concurrency: number;
}

/**
 * 2,000 pages is ten times the largest llms.txt of the sites Almanac is
 * measured on; 4 MiB a page and 256 MiB a run cover an llms-full.txt of a big
 * framework (~10 MB); 20 s a request lets a slow host answer and keeps a
 * page that never finishes from holding the run; 4 at once is polite.
 */
export const DEFAULT_LLMS_LIMITS: LlmsLimits = {
  maxPages: 2_000,
  maxPageBytes: 4 * 1024 * 1024,
  maxTotalBytes: 256 * 1024 * 1024,
  timeoutMs: 20_000,
  concurrency: 4,
};

/** Redirects followed per request, all within the origin. */
const MAX_REDIRECTS = 5;

/** One link of an llms.txt section. */
interface LlmsLink {
  title: string;
  url: string;
  notes: string;
  section: string;
}

/** An llms.txt as llmstxt.org defines it: the H1 title, the blockquote summary, the links per H2 section. */
interface LlmsTxt {
  title: string;
  summary: string;
  links: LlmsLink[];
}

/** What a read produced: pages for prepareSite and every URL passed over with the reason. */
export interface LlmsPages {
  kind: "llms.txt" | "llms-full.txt";
  title: string;
  summary: string;
  /** Paths are the pages' URL paths on the origin (no leading slash), as prepareSite takes them. */
  pages: { path: string; text: string; url: string }[];
  skipped: { path: string; reason: string }[];
  /** Caps that bound the run, said in the summary. */
  capped: string[];
}

/** The whole read failed: the llms.txt itself could not be fetched or holds nothing to read. */
export class LlmsRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LlmsRefused";
  }
}

/**
 * Parses an llms.txt: the first H1 is the title, the blockquote after it the
 * summary, and every list item's first Markdown link under an H2 a link of
 * that section (relative links resolved against `baseUrl`). Code blocks are ignored.
 *
 * @example parseLlmsTxt("# Dart\n> The language.\n## Docs\n- [Async](https://dart.dev/async.md): futures", "https://dart.dev/llms.txt").links[0].url // "https://dart.dev/async.md"
 */
export function parseLlmsTxt(text: string, baseUrl: string): LlmsTxt {
  let title = "";
  const summary: string[] = [];
  const links: LlmsLink[] = [];
  let section = "";
  let inSummary = false;
  for (const line of markdownLines(text)) {
    if (line.inFence) continue;
    if (line.heading?.level === 1 && !title) {
      title = line.heading.text;
      inSummary = true;
      continue;
    }
    if (line.heading?.level === 2) {
      section = line.heading.text;
      inSummary = false;
      continue;
    }
    const quote = /^\s*>\s?(.*)$/.exec(line.text);
    if (inSummary && quote) {
      summary.push(quote[1] ?? "");
      continue;
    }
    if (line.text.trim() !== "" && summary.length > 0) inSummary = false;
    const item = /^\s*[-*+]\s+\[((?:\\.|[^\]\\])*)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)\s*(?::\s*(.*))?$/.exec(line.text);
    if (!section || !item) continue;
    let url: string;
    try {
      url = new URL(item[2] ?? "", baseUrl).href;
    } catch {
      continue;
    }
    links.push({ title: (item[1] ?? "").replace(/\\(.)/g, "$1").trim(), url, notes: (item[3] ?? "").trim(), section });
  }
  return { title, summary: summary.join(" ").trim(), links };
}

/**
 * The page path of a URL on its origin: its path decoded, without the leading
 * slash (query and fragment dropped). A segment whose decoding would hold a
 * `/` or `\` stays encoded: `%2F..%2F` is one odd name, not a way up.
 */
function pagePathOf(url: URL): string {
  return url.pathname
    .split("/")
    .map((segment) => {
      try {
        const decoded = decodeURIComponent(segment);
        return /[/\\]/.test(decoded) ? segment : decoded;
      } catch {
        return segment;
      }
    })
    .filter((segment) => segment !== "")
    .join("/");
}

/** Options of one read. */
interface LlmsReadOptions {
  skipOptional?: boolean;
  limits?: LlmsLimits;
  fetch?: Fetcher;
  progress?: (line: string) => void;
}

/**
 * Reads the llms.txt (or llms-full.txt, told by its file name) at `url`.
 * Only URLs on its origin are fetched, redirects included; a link elsewhere
 * is skipped and reported, as is every page that fails, is not Markdown or
 * passes a cap. Throws LlmsRefused when the file itself cannot be read.
 */
export async function readLlmsPages(url: string, options: LlmsReadOptions = {}): Promise<LlmsPages> {
  const limits = options.limits ?? DEFAULT_LLMS_LIMITS;
  let start: URL;
  try {
    start = new URL(url);
  } catch {
    throw new LlmsRefused(`"${url}" is not a URL; give the address of an llms.txt, such as https://docs.example.com/llms.txt`);
  }
  if (start.protocol !== "https:" && start.protocol !== "http:") throw new LlmsRefused(`"${url}" must start with https:// or http://`);
  let text: string;
  try {
    text = await fetchMarkdown(start.href, start.origin, limits, limits.maxPageBytes, options.fetch);
  } catch (error) {
    throw new LlmsRefused(`could not read ${start.href}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (/-full\.txt$/i.test(start.pathname)) return splitLlmsFull(text, start, limits.maxPages);

  const parsed = parseLlmsTxt(text, start.href);
  const skipped: LlmsPages["skipped"] = [];
  const capped: string[] = [];
  const seen = new Set<string>();
  const planned: { link: LlmsLink; path: string; url: URL }[] = [];
  for (const link of parsed.links) {
    const target = new URL(link.url);
    const path = pagePathOf(target);
    if (options.skipOptional && link.section.toLowerCase() === "optional") {
      skipped.push({ path: link.url, reason: "in the Optional section (--skip-optional)" });
      continue;
    }
    if (target.origin !== start.origin) {
      skipped.push({ path: link.url, reason: `on another origin; only ${start.origin} is read` });
      continue;
    }
    // Two links to one page (`/a.md` and `/a`, or the same URL in two sections) are read once.
    const page = pageUri(start.origin, path);
    if (seen.has(page)) continue;
    seen.add(page);
    planned.push({ link, path, url: target });
  }
  if (parsed.links.length === 0) {
    throw new LlmsRefused(`${start.href} lists no links under its ## sections; an llms.txt lists "- [title](url)" items, and a file of whole pages is read by its name ending in -full.txt`);
  }
  if (planned.length > limits.maxPages) {
    for (const { link } of planned.slice(limits.maxPages)) skipped.push({ path: link.url, reason: `past the cap of ${limits.maxPages} pages` });
    capped.push(`${planned.length - limits.maxPages} links past the cap of ${limits.maxPages} pages were not fetched`);
    planned.length = limits.maxPages;
  }

  let fetchedBytes = 0;
  let done = 0;
  let totalCapped = false;
  const fetched = await withConcurrency(planned, limits.concurrency, async ({ link, path, url: target }) => {
    try {
      if (fetchedBytes >= limits.maxTotalBytes) {
        totalCapped = true;
        skipped.push({ path: link.url, reason: `past the cap of ${limits.maxTotalBytes} bytes a run` });
        return null;
      }
      const body = await fetchMarkdown(target.href, start.origin, limits, limits.maxPageBytes, options.fetch);
      fetchedBytes += body.length;
      return { path, text: body, url: target.href };
    } catch (error) {
      skipped.push({ path: link.url, reason: error instanceof FetchProblem ? error.message.replace(`${target.href}: `, "") : String(error) });
      return null;
    } finally {
      done += 1;
      if (options.progress && (done % 50 === 0 || done === planned.length)) options.progress(`fetched ${done}/${planned.length} pages`);
    }
  });
  if (totalCapped) capped.push(`pages past ${limits.maxTotalBytes} bytes in total were not fetched`);
  const pages = fetched.filter((page) => page !== null);
  return { kind: "llms.txt", title: parsed.title, summary: parsed.summary, pages, skipped, capped };
}

/**
 * GETs a Markdown page on `origin`, following at most MAX_REDIRECTS
 * redirects and only within the origin. HTML and binary answers are refused
 * (FetchProblem): an llms.txt links Markdown.
 */
async function fetchMarkdown(url: string, origin: string, limits: LlmsLimits, maxBytes: number, fetcher?: Fetcher): Promise<string> {
  const started = Date.now();
  let current = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop += 1) {
    const response = await fetchWithin(current, limits.timeoutMs, { fetch: fetcher, accept: "text/markdown, text/plain;q=0.9, */*;q=0.1", redirect: "manual" });
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => undefined);
      const location = response.headers.get("location");
      if (!location) throw new FetchProblem(`${current}: HTTP ${response.status} without a Location`);
      const next = new URL(location, current);
      if (next.origin !== origin) throw new FetchProblem(`${current}: redirects to another origin (${next.origin}); only ${origin} is read`);
      current = next.href;
      continue;
    }
    const type = (response.headers.get("content-type") ?? "").toLowerCase();
    if (type.includes("html")) {
      await response.body?.cancel().catch(() => undefined);
      throw new FetchProblem(`${current}: an HTML page, not Markdown; read HTML sites with npm run ingest -- site`);
    }
    if (type !== "" && !type.startsWith("text/") && !/markdown|octet-stream/.test(type)) {
      await response.body?.cancel().catch(() => undefined);
      throw new FetchProblem(`${current}: ${type.split(";")[0]}, not Markdown`);
    }
    const text = await readTextWithin(current, response, maxBytes, Math.max(1, limits.timeoutMs - (Date.now() - started)));
    if (/^\s*<(!doctype html|html)[\s>]/i.test(text)) throw new FetchProblem(`${current}: an HTML page, not Markdown; read HTML sites with npm run ingest -- site`);
    if (text.includes("\0")) throw new FetchProblem(`${current}: binary (it holds NUL bytes), not Markdown`);
    // Here, not only in prepareDocument: a heading becomes a page's title in its front matter, where YAML would revive an escaped ESC.
    return text.replace(CONTROL_CHARACTERS, "");
  }
  throw new FetchProblem(`${url}: more than ${MAX_REDIRECTS} redirects`);
}

/** A `Source:` or `URL:` line near the top of an llms-full.txt section: the page's own address. */
const SOURCE_LINE = /^\s*(?:source|url):\s*<?(\S+?)>?\s*$/i;

/**
 * Splits an llms-full.txt into pages at its top headings (the highest level
 * that occurs more than once, outside code): each page is its heading and
 * what follows, named by the `Source:` URL it gives on the file's origin,
 * else `<file path without .txt>/<heading slug>` (`-2`, `-3`… for repeats).
 * At most `maxPages` pages; the sections past it are counted in `capped`.
 */
function splitLlmsFull(text: string, fileUrl: URL, maxPages = DEFAULT_LLMS_LIMITS.maxPages): LlmsPages {
  const all = markdownLines(text);
  // An llms.txt-style header (an H1 then a blockquote) is the file's title and summary, not a page.
  const nonEmpty = all.map((line, index) => ({ line, index })).filter(({ line }) => line.text.trim() !== "");
  const [first, second] = nonEmpty;
  let title = "";
  let summary = "";
  let bodyStart = 0;
  if (first?.line.heading?.level === 1 && second && /^\s*>/.test(second.line.text)) {
    title = first.line.heading.text;
    let end = second.index;
    const quoted: string[] = [];
    for (let quote = all[end]?.text; quote !== undefined && /^\s*>/.test(quote); end += 1, quote = all[end]?.text) {
      quoted.push(quote.replace(/^\s*>\s?/, ""));
    }
    summary = quoted.join(" ").trim();
    bodyStart = end;
  }
  const lines = all.slice(bodyStart);
  const counts = new Map<number, number>();
  for (const line of lines) if (line.heading) counts.set(line.heading.level, (counts.get(line.heading.level) ?? 0) + 1);
  const level = [1, 2, 3, 4, 5, 6].find((candidate) => (counts.get(candidate) ?? 0) > 1) ?? [...counts.keys()].sort()[0];
  if (level === undefined) throw new LlmsRefused(`${fileUrl.href} has no headings to split into pages; an llms-full.txt holds one "# Title" section per page`);
  const sections: { heading: string; lines: string[] }[] = [];
  for (const line of lines) {
    if (line.heading?.level === level) sections.push({ heading: line.heading.text, lines: [line.text] });
    // What comes before the first page's heading is the file's preamble, not a page.
    else sections[sections.length - 1]?.lines.push(line.text);
  }
  const base = pagePathOf(fileUrl).replace(/\.txt$/i, "");
  const pages: LlmsPages["pages"] = [];
  const skipped: LlmsPages["skipped"] = [];
  const capped: string[] = [];
  if (sections.length > maxPages) {
    capped.push(`${sections.length - maxPages} sections past the cap of ${maxPages} pages were not read`);
    sections.length = maxPages;
  }
  const used = new Set<string>();
  /** Per path, the suffix to try next: counting up from 2 for every repeat took 141 s on 48 KB of one heading. */
  const nextSuffix = new Map<string, number>();
  for (const section of sections) {
    let path: string | undefined;
    let url = "";
    const sourceAt = section.lines.slice(1, 6).findIndex((line) => SOURCE_LINE.test(line));
    const body = [...section.lines];
    if (sourceAt !== -1) {
      const [, source = ""] = SOURCE_LINE.exec(section.lines[sourceAt + 1] ?? "") ?? [];
      body.splice(sourceAt + 1, 1);
      try {
        const sourceUrl = new URL(source, fileUrl);
        if (sourceUrl.origin === fileUrl.origin) {
          path = pagePathOf(sourceUrl);
          url = sourceUrl.href;
        } else {
          skipped.push({ path: `${section.heading} (${source})`, reason: `its Source is on another origin; kept under ${base}/ instead` });
        }
      } catch {
        // Not a URL: the section is named by its heading.
      }
    }
    if (path === undefined) path = `${base}/${headingSlug(section.heading)}`;
    const key = pageUri(fileUrl.origin, path);
    let unique = path;
    if (used.has(key)) {
      let n = nextSuffix.get(path) ?? 2;
      while (used.has(pageUri(fileUrl.origin, `${path}-${n}`))) n += 1;
      unique = `${path}-${n}`;
      nextSuffix.set(path, n + 1);
    }
    used.add(key);
    used.add(pageUri(fileUrl.origin, unique));
    // The heading is the page's title even when the file splits at H2 (prepareSite titles from front matter, then an H1).
    pages.push({ path: unique, text: `---\ntitle: ${JSON.stringify(section.heading)}\n---\n${body.join("\n").trim()}\n`, url: url || new URL(`/${unique}`, fileUrl).href });
  }
  return { kind: "llms-full.txt", title, summary, pages, skipped, capped };
}
