// The site reader's robots.txt parser, run inside workerd: the group Almanac obeys (RFC 9309),
// longest-rule matching with * and $, and rules and lines shaped to make a matcher backtrack.
import { describe, expect, it } from "vitest";
import { parseRobots } from "../../src/readers/site/robots.ts";

describe("robots.txt", () => {
  const robots = `
# comment
User-agent: *
Disallow: /private/
Allow: /private/open
Disallow: /*.pdf$
Crawl-delay: 2

User-agent: Almanac
User-agent: other
Disallow: /not-for-almanac

Sitemap: https://docs.example.com/sitemap.xml
`;

  it("uses the group naming Almanac over the * group, case-insensitively", () => {
    const forAlmanac = parseRobots(robots, "almanac");
    expect(forAlmanac.allows("/not-for-almanac/page")).toBe(false);
    expect(forAlmanac.allows("/private/x")).toBe(true);
    expect(forAlmanac.crawlDelaySeconds).toBeUndefined();
  });

  it("gives other crawlers the * group: longest rule wins, Allow on a tie, * and $ in paths", () => {
    const other = parseRobots(robots, "SomeBot");
    expect(other.allows("/private/secret")).toBe(false);
    expect(other.allows("/private/open/page")).toBe(true);
    expect(other.allows("/guide/manual.pdf")).toBe(false);
    expect(other.allows("/guide/manual.pdf.html")).toBe(true);
    expect(other.allows("/not-for-almanac")).toBe(true);
    expect(other.crawlDelaySeconds).toBe(2);
    expect(parseRobots("User-agent: *\nAllow: /a\nDisallow: /a", "x").allows("/a")).toBe(true);
  });

  it("collects Sitemap lines whatever the group, and an empty Disallow allows all", () => {
    expect(parseRobots(robots, "x").sitemaps).toEqual(["https://docs.example.com/sitemap.xml"]);
    expect(parseRobots("User-agent: *\nDisallow:", "Almanac").allows("/anything")).toBe(true);
  });

  it("chooses Almanac's group by its product token only: not `A`, not an empty agent, and `Almanac/9.9` is Almanac (issue 39, row 9)", () => {
    const groups = (agent: string) => `User-agent: *\nDisallow: /for-all\n\nUser-agent: ${agent}\nDisallow: /for-that-group\n`;
    for (const stranger of ["A", "", "Alma", "/almanac"]) {
      const forAlmanac = parseRobots(groups(stranger), "Almanac");
      expect(forAlmanac.allows("/for-that-group"), `User-agent: ${stranger}`).toBe(true);
      expect(forAlmanac.allows("/for-all"), `User-agent: ${stranger}`).toBe(false);
    }
    for (const ours of ["Almanac/9.9", "ALMANAC", "almanac (docs crawler)"]) {
      const forAlmanac = parseRobots(groups(ours), "Almanac");
      expect(forAlmanac.allows("/for-that-group"), `User-agent: ${ours}`).toBe(false);
      expect(forAlmanac.allows("/for-all"), `User-agent: ${ours}`).toBe(true);
    }
  });

  it("obeys the group of its own product token, merged, whatever the case and order; * only when no group names it (RFC 9309 2.2.1)", () => {
    const robots = [
      "User-agent: *",
      "Disallow: /for-all",
      "",
      "User-agent: AlmanacBot/2.0",
      "Disallow: /bot-only",
      "",
      "User-agent: aLmAnAc",
      "Disallow: /almanac-only",
      "",
      "User-agent: Almanac/1.0 (+https://almanac.dev)",
      "Disallow: /almanac-too",
    ].join("\n");
    const paths = ["/for-all", "/bot-only", "/almanac-only", "/almanac-too"];
    const allowed = (agent: string) => paths.filter((path) => parseRobots(robots, agent).allows(path));
    // Both groups naming Almanac apply, the * group and AlmanacBot's (a longer token, another crawler) do not.
    expect(allowed("Almanac")).toEqual(["/for-all", "/bot-only"]);
    expect(allowed("ALMANAC")).toEqual(["/for-all", "/bot-only"]);
    // The crawler passes its User-Agent's first word; a version or comment after the token changes nothing.
    expect(allowed("AlmanacBot/2.0 (+https://example.com/bot)")).toEqual(["/for-all", "/almanac-only", "/almanac-too"]);
    expect(allowed("OtherBot")).toEqual(["/bot-only", "/almanac-only", "/almanac-too"]);
    // A group naming Almanac wins even when it allows everything and comes after the * group's Disallow: /.
    const emptyOwnGroup = parseRobots("User-agent: *\nDisallow: /\n\nUser-agent: Almanac\nDisallow:\n", "Almanac");
    expect(emptyOwnGroup.allows("/any/page")).toBe(true);
    expect(parseRobots("User-agent: *\nDisallow: /\n\nUser-agent: Almanac\nDisallow:\n", "AlmanacBot").allows("/any/page")).toBe(false);
  });

  it("matches * and $ exactly as the regex it replaced, on every small pattern and path", () => {
    const reference = (pattern: string, path: string) => {
      const anchored = pattern.endsWith("$");
      const body = (anchored ? pattern.slice(0, -1) : pattern).split("*").map((part) => part.replace(/[.$]/g, "\\$&")).join(".*");
      return new RegExp(`^${body}${anchored ? "$" : ""}`).test(path);
    };
    // Every pattern of up to 5 characters over /, a, b, * (and each with a final $), against every path of up to 5 of /, a, b.
    const wordsUpTo = (alphabet: string, length: number): string[] => {
      let all = [""];
      let longest = [""];
      for (let size = 1; size <= length; size += 1) {
        longest = longest.flatMap((word) => [...alphabet].map((letter) => word + letter));
        all = all.concat(longest);
      }
      return all;
    };
    const patterns = wordsUpTo("/ab*", 5).filter((pattern) => pattern.startsWith("/") || pattern.startsWith("*"));
    const paths = wordsUpTo("/ab", 5);
    let compared = 0;
    for (const body of patterns) {
      for (const pattern of [body, `${body}$`]) {
        const robots = parseRobots(`User-agent: *\nDisallow: ${pattern}`, "Almanac");
        for (const path of paths) {
          if (robots.allows(path) === reference(pattern, path)) throw new Error(`${pattern} on ${path}`);
          compared += 1;
        }
      }
    }
    expect(compared).toBeGreaterThan(100_000);
  });

  it("matches a rule of thousands of * against a long path without backtracking (issue 39, row 1: 12 * never ended)", () => {
    // The repro: 10 and 40 wildcards before a letter the path lacks.
    const path = `/${"a".repeat(40)}`;
    for (const stars of [10, 12, 40]) expect(parseRobots(`User-agent: *\nDisallow: /${"*a".repeat(stars)}*b`, "Almanac").allows(path)).toBe(true);
    // At scale: 20,000 * against a 100,000-character path, matching and failing; each part is searched once, left to right.
    const longPath = `/${"ab".repeat(50_000)}`;
    const manyStars = `/${"*a".repeat(10_000)}`;
    expect(parseRobots(`User-agent: *\nDisallow: ${manyStars}*b$`, "Almanac").allows(longPath)).toBe(false);
    expect(parseRobots(`User-agent: *\nDisallow: ${manyStars}*c`, "Almanac").allows(longPath)).toBe(true);
    expect(parseRobots(`User-agent: *\nDisallow: ${manyStars}*a$`, "Almanac").allows(longPath)).toBe(true);
  });

  it("reads a line of many # before a line separator in one pass", () => {
    // `/#.*$/` retried from each # on such a line: 500,000 of them were hours of work.
    const robots = parseRobots(`User-agent: *\nDisallow: /x ${"#".repeat(500_000)}\u2028\nDisallow: /y`, "Almanac");
    expect(robots.allows("/x")).toBe(false);
    expect(robots.allows("/y")).toBe(false);
  });
});
