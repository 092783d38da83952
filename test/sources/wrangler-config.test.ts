// The refresh's deployment pieces in wrangler.toml are the ones the code
// relies on: the Cron Trigger whose events refresh due sources (REFRESH_CRON),
// and the Workflow binding the cron starts instances of.
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { REFRESH_CRON, refreshesAll } from "../../src/sources/cron.ts";

const wranglerToml = Object.values(import.meta.glob<string>("../../wrangler.toml", { query: "?raw", import: "default", eager: true }))[0] ?? "";

describe("wrangler.toml for source refresh", () => {
  const config = parse(wranglerToml) as { triggers?: { crons?: string[] }; workflows?: { binding: string; class_name: string }[] };

  it("has the one Cron Trigger whose events refresh due sources", () => {
    expect(config.triggers?.crons).toEqual([REFRESH_CRON]);
    expect(refreshesAll(REFRESH_CRON)).toBe(false);
    // wrangler's /__scheduled fired by hand carries no cron, or another: every source is refreshed now.
    expect(refreshesAll("")).toBe(true);
    expect(refreshesAll("* * * * *")).toBe(true);
  });

  it("binds the refresh Workflow class the Worker exports", async () => {
    expect(config.workflows).toEqual([{ name: "almanac-source-refresh", binding: "SOURCE_REFRESH", class_name: "SourceRefresh" }]);
    const worker = await import("../../src/index.ts");
    expect(typeof worker.SourceRefresh).toBe("function");
    expect(typeof worker.default.scheduled).toBe("function");
  });
});
