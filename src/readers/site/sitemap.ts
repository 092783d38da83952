/**
 * Sitemaps (sitemaps.org): a `<urlset>` of page `<loc>`s or a
 * `<sitemapindex>` of further sitemaps. Read with a scanner, not a DOM:
 * Workers have no XML parser, and a sitemap is flat.
 */

/** What one sitemap file lists. */
interface Sitemap {
  kind: "urlset" | "index";
  /** Page URLs (urlset) or sitemap URLs (index), in file order. */
  locations: string[];
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/**
 * Reads the `<loc>`s of a sitemap; null when the text is not a sitemap.
 *
 * @example parseSitemap("<urlset><url><loc>https://a.dev/x</loc></url></urlset>") // { kind: "urlset", locations: ["https://a.dev/x"] }
 */
export function parseSitemap(xml: string): Sitemap | null {
  const root = /<(?:[\w-]+:)?(urlset|sitemapindex)[\s>]/.exec(xml);
  if (!root) return null;
  const locations: string[] = [];
  for (const text of locTexts(xml)) {
    const raw = withoutCdata(text.trim());
    // Markup inside a <loc> (unclosed tags before it) is not a URL.
    if (raw.includes("<")) continue;
    const location = decodeEntities(raw).trim();
    if (location) locations.push(location);
  }
  return { kind: root[1] === "sitemapindex" ? "index" : "urlset", locations };
}

const LOC_OPEN = /<(?:[\w-]+:)?loc>/g;
const LOC_CLOSE = /<\/(?:[\w-]+:)?loc>/g;

/**
 * The text inside each `<loc>…</loc>`, in one pass: each search starts
 * where the last ended. An opening tag with no closing one after it ends
 * the scan, since no later one can close either (a lazy regex rescanned to
 * the end from every unclosed `<loc>`: 1 MB of them never finished).
 */
function* locTexts(xml: string): Generator<string> {
  let position = 0;
  for (;;) {
    LOC_OPEN.lastIndex = position;
    const open = LOC_OPEN.exec(xml);
    if (!open) return;
    LOC_CLOSE.lastIndex = LOC_OPEN.lastIndex;
    const close = LOC_CLOSE.exec(xml);
    if (!close) return;
    yield xml.slice(LOC_OPEN.lastIndex, close.index);
    position = LOC_CLOSE.lastIndex;
  }
}

/** A location written as `<![CDATA[…]]>`, unwrapped. */
function withoutCdata(text: string): string {
  const start = text.startsWith("<![CDATA[") ? "<![CDATA[".length : 0;
  const end = text.endsWith("]]>") ? text.length - "]]>".length : text.length;
  return text.slice(start, Math.max(start, end));
}

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|\w+);/gi, (entity, name: string) => {
    if (!name.startsWith("#")) return ENTITIES[name.toLowerCase()] ?? entity;
    const code = name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
    return code <= 0x10ffff ? String.fromCodePoint(code) : entity;
  });
}
