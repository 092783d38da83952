/**
 * robots.txt as RFC 9309 reads it: the group naming our user agent, else
 * the `*` group; the longest matching rule wins, `Allow` on a tie; `*` and
 * `$` in paths. Plus the two widespread extensions a crawler needs:
 * `Crawl-delay` and `Sitemap`.
 */

/** What a site's robots.txt says to one crawler. */
export interface Robots {
  /** True when the path (with its query) may be fetched. */
  allows(pathAndQuery: string): boolean;
  /** The group's Crawl-delay in seconds, when it gives one. */
  crawlDelaySeconds?: number;
  /** Every `Sitemap:` URL, whatever the group. */
  sitemaps: string[];
}

interface Rule {
  allow: boolean;
  pattern: string;
  regex: RegExp;
}

interface Group {
  agents: string[];
  rules: Rule[];
  crawlDelaySeconds?: number;
}

/** A robots.txt that allows everything: the site has none (404) or it could not be read. */
export const ALLOW_ALL: Robots = { allows: () => true, sitemaps: [] };

/**
 * Reads a robots.txt for the crawler whose product token is `agent`
 * (matched case-insensitively against `User-agent` lines, as RFC 9309 says).
 *
 * @example parseRobots("User-agent: *\nDisallow: /private", "Almanac").allows("/private/x") // false
 */
export function parseRobots(text: string, agent: string): Robots {
  const groups: Group[] = [];
  const sitemaps: string[] = [];
  let current: Group | undefined;
  let lastWasAgent = false;
  for (const rawLine of text.split(/\r\n|\r|\n/)) {
    const line = rawLine.replace(/#.*$/, "").trim();
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const field = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (field === "sitemap") {
      if (value) sitemaps.push(value);
      continue;
    }
    if (field === "user-agent") {
      // Consecutive User-agent lines share one group.
      if (!current || !lastWasAgent) {
        current = { agents: [], rules: [] };
        groups.push(current);
      }
      current.agents.push(value.toLowerCase());
      lastWasAgent = true;
      continue;
    }
    lastWasAgent = false;
    if (!current) continue;
    if (field === "allow" || field === "disallow") {
      // An empty Disallow allows everything: no rule.
      if (value) current.rules.push({ allow: field === "allow", pattern: value, regex: patternRegex(value) });
    } else if (field === "crawl-delay") {
      const seconds = Number(value);
      if (Number.isFinite(seconds) && seconds >= 0) current.crawlDelaySeconds = seconds;
    }
  }
  const token = agent.toLowerCase();
  const own = groups.filter((group) => group.agents.some((name) => name !== "*" && token.startsWith(name)));
  const chosen = own.length > 0 ? own : groups.filter((group) => group.agents.includes("*"));
  const rules = chosen.flatMap((group) => group.rules);
  const crawlDelaySeconds = chosen.map((group) => group.crawlDelaySeconds).find((seconds) => seconds !== undefined);
  return {
    allows(pathAndQuery) {
      let best: Rule | undefined;
      for (const rule of rules) {
        if (!rule.regex.test(pathAndQuery)) continue;
        if (!best || rule.pattern.length > best.pattern.length || (rule.pattern.length === best.pattern.length && rule.allow)) best = rule;
      }
      return best?.allow ?? true;
    },
    ...(crawlDelaySeconds !== undefined ? { crawlDelaySeconds } : {}),
    sitemaps,
  };
}

/** A rule's path as a regex anchored at the start: `*` any characters, a final `$` the end. */
function patternRegex(pattern: string): RegExp {
  const anchored = pattern.endsWith("$");
  const body = (anchored ? pattern.slice(0, -1) : pattern)
    .split("*")
    .map((part) => normalizePercent(part).replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${body}${anchored ? "$" : ""}`);
}

/** Rules may write `%7E` or `~`: compare paths in one form (percent-encoded, upper-case hex). */
function normalizePercent(path: string): string {
  return path.replace(/%[0-9a-f]{2}/gi, (escape) => escape.toUpperCase());
}
