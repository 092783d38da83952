/**
 * robots.txt as RFC 9309 reads it: the group naming our product token, else
 * the `*` group; the longest matching rule wins, `Allow` on a tie; `*` and
 * `$` in paths. Plus the two widespread extensions a crawler needs:
 * `Crawl-delay` and `Sitemap`. Matching never backtracks: a rule's literal
 * parts are found left to right, each at most one scan of the rest of the path.
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
  /** The pattern split at its `*`s, percent escapes in one form. */
  parts: string[];
  /** The pattern ended in `$`: the last part must end the path. */
  anchored: boolean;
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
    const line = withoutComment(rawLine).trim();
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
      current.agents.push(productToken(value));
      lastWasAgent = true;
      continue;
    }
    lastWasAgent = false;
    if (!current) continue;
    if (field === "allow" || field === "disallow") {
      // An empty Disallow allows everything: no rule.
      if (value) current.rules.push(rule(field === "allow", value));
    } else if (field === "crawl-delay") {
      const seconds = Number(value);
      if (Number.isFinite(seconds) && seconds >= 0) current.crawlDelaySeconds = seconds;
    }
  }
  const token = productToken(agent);
  const own = token && token !== "*" ? groups.filter((group) => group.agents.includes(token)) : [];
  const chosen = own.length > 0 ? own : groups.filter((group) => group.agents.includes("*"));
  const rules = chosen.flatMap((group) => group.rules);
  const crawlDelaySeconds = chosen.map((group) => group.crawlDelaySeconds).find((seconds) => seconds !== undefined);
  return {
    allows(pathAndQuery) {
      let best: Rule | undefined;
      for (const rule of rules) {
        if (!matches(rule, pathAndQuery)) continue;
        if (!best || rule.pattern.length > best.pattern.length || (rule.pattern.length === best.pattern.length && rule.allow)) best = rule;
      }
      return best?.allow ?? true;
    },
    ...(crawlDelaySeconds !== undefined ? { crawlDelaySeconds } : {}),
    sitemaps,
  };
}

/**
 * The product token a `User-agent` line names, lower-cased: its leading
 * letters, `-` and `_` (RFC 9309 2.2.1), so `Almanac/9.9` is `almanac`; `*`
 * for the group of every crawler; "" (no crawler) for `/x` or an empty line.
 */
function productToken(value: string): string {
  if (value.startsWith("*")) return "*";
  return (/^[A-Za-z_-]*/.exec(value)?.[0] ?? "").toLowerCase();
}

function rule(allow: boolean, pattern: string): Rule {
  const anchored = pattern.endsWith("$");
  const parts = (anchored ? pattern.slice(0, -1) : pattern).split("*").map(normalizePercent);
  return { allow, pattern, parts, anchored };
}

/**
 * True when the rule matches the path from its start. The first part must
 * begin the path; every later part is taken at its leftmost place after the
 * one before (the leftmost leaves the most path for the rest, so no other
 * choice can succeed where it fails); an anchored rule's last part must also
 * end the path. One indexOf per part, never revisited: no backtracking,
 * whatever the number of `*`s (a regex of `.*`s took minutes on 10 of them).
 */
function matches(rule: Rule, path: string): boolean {
  const { parts, anchored } = rule;
  const first = parts[0] ?? "";
  if (!path.startsWith(first)) return false;
  let position = first.length;
  for (let index = 1; index < parts.length; index += 1) {
    const part = parts[index] ?? "";
    if (anchored && index === parts.length - 1) return path.length - part.length >= position && path.endsWith(part);
    const found = path.indexOf(part, position);
    if (found < 0) return false;
    position = found + part.length;
  }
  return !anchored || position === path.length;
}

/**
 * The line before its `#`. Not `/#.*$/`: `.` stops at U+2028, so a line of
 * many `#`s before one would be rescanned from each of them.
 */
export function withoutComment(line: string): string {
  const hash = line.indexOf("#");
  return hash < 0 ? line : line.slice(0, hash);
}

/** Rules may write `%7E` or `~`: compare paths in one form (percent-encoded, upper-case hex). */
function normalizePercent(path: string): string {
  return path.replace(/%[0-9a-f]{2}/gi, (escape) => escape.toUpperCase());
}
