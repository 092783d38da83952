// Sources are rows a deployer keeps with `npm run sources`; the cron asks which
// are due and a run claims one so two runs of a source never overlap.
import { env, SELF } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { runSource } from "../../src/sources/run.ts";
import { addSource, claimSource, dueSources, finishRun, getSource, listSources, parseInterval, removeSource } from "../../src/sources/sources.ts";

const NOW = Date.UTC(2026, 11, 1, 12, 0, 0);
const counts = { added: 3, updated: 1, unchanged: 5, removed: 1, skipped: 0 };

beforeEach(async () => {
  await env.DB.prepare("DELETE FROM sources").run();
});

describe("parseInterval", () => {
  it("reads seconds, minutes, hours and days", () => {
    expect([parseInterval("90s"), parseInterval("30m"), parseInterval("1h"), parseInterval("1d")]).toEqual([90, 1800, 3600, 86400]);
  });
  it("refuses anything else with what to write instead", () => {
    expect(() => parseInterval("hourly")).toThrow(/--every must be a positive number followed by s, m, h or d/);
    expect(() => parseInterval("0h")).toThrow(/not "0h"/);
  });
});

describe("sources", () => {
  it("a new source is due at once, with no run yet", async () => {
    const added = await addSource(env.DB, { name: "demo", kind: "site", url: "http://127.0.0.1:1/docs/", options: { "max-pages": "10" }, every: 3600 }, NOW);
    expect(added).toMatchObject({ name: "demo", kind: "site", options: { "max-pages": "10" }, every: 3600, lastRun: null, nextDue: NOW, runId: null });
    expect(dueSources(await listSources(env.DB), NOW).map((source) => source.name)).toEqual(["demo"]);
  });

  it("refuses a taken name and a bad kind", async () => {
    await addSource(env.DB, { name: "demo", kind: "site", url: "http://a/", every: 60 }, NOW);
    await expect(addSource(env.DB, { name: "demo", kind: "llms", url: "http://b/", every: 60 }, NOW)).rejects.toThrow(/"demo" exists already/);
    await expect(addSource(env.DB, { name: "x", kind: "ftp" as never, url: "http://b/", every: 60 }, NOW)).rejects.toThrow(/one of site, archive, llms/);
  });

  it("one claim wins; a claimed source is not due; finishing records the run and schedules the next", async () => {
    await addSource(env.DB, { name: "demo", kind: "site", url: "http://a/", every: 3600 }, NOW);
    expect(await claimSource(env.DB, "demo", "run-1", NOW)).toBe(true);
    expect(await claimSource(env.DB, "demo", "run-2", NOW)).toBe(false);
    expect(dueSources(await listSources(env.DB), NOW + 1)).toEqual([]);
    expect((await getSource(env.DB, "demo"))?.lastRun?.outcome).toBe("running");

    await finishRun(env.DB, "demo", "run-1", { outcome: "succeeded", counts }, NOW + 5000);
    const done = (await getSource(env.DB, "demo"))!;
    expect(done).toMatchObject({ runId: null, lastSuccessTime: NOW + 5000, nextDue: NOW + 5000 + 3600_000 });
    expect(done.lastRun).toEqual({ outcome: "succeeded", startTime: NOW, endTime: NOW + 5000, error: null, ...counts });
    expect(dueSources([done], NOW + 5000 + 3600_000 - 1)).toEqual([]);
    expect(dueSources([done], NOW + 5000 + 3600_000)).toHaveLength(1);
  });

  it("a failed run keeps the last success time and records why", async () => {
    await addSource(env.DB, { name: "demo", kind: "site", url: "http://a/", every: 60 }, NOW);
    await claimSource(env.DB, "demo", "run-1", NOW);
    await finishRun(env.DB, "demo", "run-1", { outcome: "succeeded", counts }, NOW + 1);
    await claimSource(env.DB, "demo", "run-2", NOW + 2);
    await finishRun(env.DB, "demo", "run-2", { outcome: "failed", error: "HTTP 500 from http://a/x" }, NOW + 3);
    const failed = (await getSource(env.DB, "demo"))!;
    expect(failed.lastSuccessTime).toBe(NOW + 1);
    expect(failed.lastRun).toMatchObject({ outcome: "failed", error: "HTTP 500 from http://a/x" });
  });

  it("removing says whether there was such a source", async () => {
    await addSource(env.DB, { name: "demo", kind: "site", url: "http://a/", every: 60 }, NOW);
    expect(await removeSource(env.DB, "demo")).toBe(true);
    expect(await removeSource(env.DB, "demo")).toBe(false);
  });
});

describe("runSource", () => {
  it("records a successful read's counts, and a failed read's reason while keeping the last success", async () => {
    await addSource(env.DB, { name: "demo", kind: "site", url: "http://a/", every: 60 }, NOW);
    let clock = NOW;
    const ok = await runSource(env.DB, "demo", "run-1", async () => ({ added: ["a", "b"], updated: [], unchanged: ["c"], removed: [], skipped: [{}] }), () => clock++);
    expect(ok.lastRun).toMatchObject({ outcome: "succeeded", added: 2, unchanged: 1, skipped: 1 });
    await expect(
      runSource(env.DB, "demo", "run-2", async () => {
        throw new Error("HTTP 500 from http://a/b");
      }, () => clock++),
    ).rejects.toThrow("HTTP 500");
    const failed = (await getSource(env.DB, "demo"))!;
    expect(failed).toMatchObject({ runId: null, lastSuccessTime: ok.lastSuccessTime });
    expect(failed.lastRun).toMatchObject({ outcome: "failed", error: "HTTP 500 from http://a/b" });
  });

  it("refuses a second run while one holds the source, and an unknown name", async () => {
    await addSource(env.DB, { name: "demo", kind: "site", url: "http://a/", every: 60 }, NOW);
    await claimSource(env.DB, "demo", "run-1", NOW);
    await expect(runSource(env.DB, "demo", "run-2", async () => ({ added: [], updated: [], unchanged: [], removed: [] }))).rejects.toThrow(/being refreshed by run run-1/);
    await expect(runSource(env.DB, "nope", "run-3", async () => ({ added: [], updated: [], unchanged: [], removed: [] }))).rejects.toThrow(/no source named "nope"/);
  });
});

describe("GET /sources", () => {
  it("shows each source's freshness and page count, never its options", async () => {
    await addSource(env.DB, { name: "demo", kind: "site", url: "http://docs.example.test/docs/", options: { include: ["secret-token"] }, every: 3600 }, NOW);
    await claimSource(env.DB, "demo", "run-1", NOW);
    await finishRun(env.DB, "demo", "run-1", { outcome: "failed", error: "HTTP 500 from http://docs.example.test/docs/b" }, NOW + 1000);
    const response = await SELF.fetch("https://almanac.test/sources");
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).not.toContain("secret-token");
    expect(JSON.parse(text)).toEqual({
      sources: [
        {
          name: "demo",
          kind: "site",
          host: "docs.example.test",
          pageCount: 0,
          lastSuccessTime: null,
          nextDue: new Date(NOW + 1000 + 3600_000).toISOString(),
          lastRun: {
            outcome: "failed",
            startTime: new Date(NOW).toISOString(),
            endTime: new Date(NOW + 1000).toISOString(),
            added: 0,
            updated: 0,
            unchanged: 0,
            removed: 0,
            skipped: 0,
            error: "HTTP 500 from http://docs.example.test/docs/b",
          },
        },
      ],
    });
  });
});
