/**
 * Sitemaps (sitemaps.org): a `<urlset>` of page `<loc>`s or a
 * `<sitemapindex>` of further sitemaps. Read with a scanner, not a DOM:
 * Workers have no XML parser, and a sitemap is flat.
 */

/** What one sitemap file lists. */
export interface Sitemap {
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
  for (const match of xml.matchAll(/<(?:[\w-]+:)?loc>\s*(?:<!\[CDATA\[)?([\s\S]*?)(?:\]\]>)?\s*<\/(?:[\w-]+:)?loc>/g)) {
    const location = decodeEntities(match[1] ?? "").trim();
    if (location) locations.push(location);
  }
  return { kind: root[1] === "sitemapindex" ? "index" : "urlset", locations };
}

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|\w+);/gi, (entity, name: string) => {
    if (!name.startsWith("#")) return ENTITIES[name.toLowerCase()] ?? entity;
    const code = name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
    return code <= 0x10ffff ? String.fromCodePoint(code) : entity;
  });
}
