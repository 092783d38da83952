/**
 * Which URLs a crawl may read (the start URL's origin and path, robots.txt
 * aside, --include/--exclude) and what each is called once ingested
 * (`--base-uri` maps the crawled host onto the public one).
 */

/** The part of a site a crawl covers. */
export interface CrawlScope {
  origin: string;
  /** Path prefix every page's path starts with; always ends with "/". */
  prefix: string;
  /** The start URL itself, which may sit just outside the prefix ("/docs" for "/docs/"). */
  start: string;
}

/**
 * The scope of a crawl from its start URL: a folder (`/docs/`) covers what is
 * under it; a file (`/docs/index.html`) or a bare name (`/docs`) covers its
 * folder (`/docs/`). Throws a plain Error when the URL is not http(s).
 *
 * @example scopeOf("https://docs.python.org/3/index.html").prefix // "/3/"
 */
export function scopeOf(startUrl: string): CrawlScope {
  let url: URL;
  try {
    url = new URL(startUrl);
  } catch {
    throw new Error(`"${startUrl}" is not a URL; give the site's address, e.g. https://docs.example.com/`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error(`"${startUrl}" must start with https:// or http://`);
  const path = url.pathname;
  const last = path.slice(path.lastIndexOf("/") + 1);
  const prefix = last === "" ? path : last.includes(".") ? path.slice(0, path.length - last.length) : `${path}/`;
  return { origin: url.origin, prefix, start: `${url.origin}${path}` };
}

/** True when `url` (absolute, without query or fragment) is on the scope's origin under its prefix. */
export function inScope(scope: CrawlScope, url: string): boolean {
  return url === scope.start || (url.startsWith(scope.origin + "/") && new URL(url).pathname.startsWith(scope.prefix));
}

/** The URL a page is known by: no fragment, no query (document names have neither). */
export function pageKey(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

/**
 * The URL a page is published under: a folder's index page is the folder
 * (`/guide/index.html` and `/guide/` are one page), without the trailing
 * slash the document name rule forbids.
 *
 * @example publishedUrl("https://x.dev/docs/index.html") // "https://x.dev/docs"
 */
export function publishedUrl(url: string): string {
  return url.replace(/\/index\.html?$/i, "/").replace(/(?<=[^/])\/+$/, "");
}

/**
 * Maps a crawled URL onto the public one: the scope's origin and prefix
 * become `baseUri`. Identity when no base URI is given.
 *
 * @example publicUrlFor({ origin: "http://127.0.0.1:8000", prefix: "/", start: "http://127.0.0.1:8000/" }, "https://docs.python.org/3")("http://127.0.0.1:8000/howto/sorting.html") // "https://docs.python.org/3/howto/sorting.html"
 */
export function publicUrlFor(scope: CrawlScope, baseUri: string | undefined): (url: string) => string {
  if (!baseUri) return (url) => url;
  const base = baseUri.replace(/\/+$/, "");
  const root = scope.origin + scope.prefix;
  return (url) => {
    if (url.startsWith(root)) return `${base}/${url.slice(root.length)}`.replace(/\/$/, "") || base;
    if (url === scope.start || url.startsWith(`${scope.start}?`) || url.startsWith(`${scope.start}#`)) return base + url.slice(scope.start.length);
    return url;
  };
}

/**
 * A glob over URL paths as a matcher: `*` any characters but `/`, `**` any
 * characters, `?` one character. A glob without a leading `/` matches
 * anywhere after a `/` (`*.html`, `genindex*`).
 *
 * @example globMatcher("/library/**")("/library/os.html") // true
 */
export function globMatcher(glob: string): (path: string) => boolean {
  let source = "";
  for (let i = 0; i < glob.length; i += 1) {
    const char = glob[i] as string;
    if (char === "*" && glob[i + 1] === "*") {
      source += ".*";
      i += 1;
    } else if (char === "*") source += "[^/]*";
    else if (char === "?") source += "[^/]";
    else source += char.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  const regex = new RegExp(glob.startsWith("/") ? `^${source}$` : `(?:^|/)${source}$`);
  return (path) => regex.test(path);
}
