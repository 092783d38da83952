// Sources are rows a deployer keeps with `npm run sources`; the cron asks which
// are due and a run claims one so two runs of a source never overlap.
import { createExecutionContext, env, SELF } from "cloudflare:test";
import { app } from "../../src/index.ts";
import { beforeEach, describe, expect, it } from "vitest";
import { siteRunFlags } from "../../src/documents/ingest/plan-site-run.ts";
import { READER_USER_AGENT } from "../../src/readers/http.ts";
import { planSourceSiteRun } from "../../src/sources/read-source.ts";
import { runSource } from "../../src/sources/run.ts";
import { addSource, claimSource, dueSources, finishRun, getSource, listSources, parseInterval, removeSource } from "../../src/sources/sources.ts";
import { redactUrlSecrets } from "../../src/text/redact-urls.ts";

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

describe("a site source's run, planned once from its stored flags", () => {
  it("is the crawl the same flags give npm run ingest -- site, as a mirror, and a push's URLs narrow it", async () => {
    const options = { "base-uri": "https://docs.python.org/3/", "data-source": "python", include: ["/3/library/**"], "max-pages": "40", timeout: "3" };
    const source = await addSource(env.DB, { name: "python", kind: "site", url: "http://127.0.0.1:8000/3/index.html", options, every: 3600 }, NOW);
    const plan = planSourceSiteRun(source);
    expect(plan).toMatchObject({
      start: "http://127.0.0.1:8000/3/index.html",
      scope: { origin: "http://127.0.0.1:8000", prefix: "/3/" },
      site: { baseUri: "https://docs.python.org/3", dataSource: "python" },
      include: ["/3/library/**"],
      exclude: [],
      limits: { maxPages: 40, timeoutMs: 3000, concurrency: 4 },
      userAgent: READER_USER_AGENT,
      prune: true,
      refuseShrinking: true,
    });
    expect(plan.publicUrl("http://127.0.0.1:8000/3/howto/sorting.html")).toBe("https://docs.python.org/3/howto/sorting.html");
    expect(planSourceSiteRun(source, { only: ["http://127.0.0.1:8000/3/howto/sorting.html"] }).only).toEqual(["http://127.0.0.1:8000/3/howto/sorting.html"]);
  });

  it("refuses a --max-pages or --timeout that is not a positive number, stored as on the command line", () => {
    expect(() => siteRunFlags({ "max-pages": "many" })).toThrow('--max-pages must be a positive number, not "many"');
    expect(() => siteRunFlags({ timeout: "0" })).toThrow('--timeout must be a positive number, not "0"');
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
          hook: null,
          lastPush: null,
          lastRun: {
            outcome: "failed",
            startTime: new Date(NOW).toISOString(),
            endTime: new Date(NOW + 1000).toISOString(),
            added: 0,
            updated: 0,
            unchanged: 0,
            removed: 0,
            skipped: 0,
            pagesRead: null,
            pagesWritten: null,
            pushToPublishedMs: null,
            error: "HTTP 500 from http://docs.example.test/docs/b",
          },
        },
      ],
    });
  });

  it("never shows a source URL's secrets: userinfo and query strings are redacted when stored and when shown (issue 39, row 5)", async () => {
    const secret = "https://deploy:hunter2@docs.example.test/llms.txt?sig=abc123&access_token=tok-456";
    await addSource(env.DB, { name: "signed", kind: "llms", url: secret, every: 3600 }, NOW);
    await claimSource(env.DB, "signed", "run-1", NOW);
    await finishRun(env.DB, "signed", "run-1", { outcome: "failed", error: `could not read ${secret}: ${secret}: HTTP 403` }, NOW + 1000);
    const stored = await env.DB.prepare("SELECT error FROM sources WHERE name = 'signed'").first<{ error: string }>();
    const redacted = "https://[redacted]@docs.example.test/llms.txt?[redacted]";
    expect(stored?.error).toBe(`could not read ${redacted}: ${redacted}: HTTP 403`);
    // A row stored before errors were redacted is redacted on the way out.
    await env.DB.prepare("UPDATE sources SET error = ?1 WHERE name = 'signed'").bind(`HTTP 403 from ${secret}`).run();
    const text = await (await SELF.fetch("https://almanac.test/sources")).text();
    for (const leak of ["hunter2", "abc123", "tok-456", "deploy:"]) expect(text).not.toContain(leak);
    expect(JSON.parse(text).sources[0].lastRun.error).toBe(`HTTP 403 from ${redacted}`);
  });
});

describe("GET /sources in a browser (issue 39, row 5)", () => {
  it("refuses a rebound Host and another site's page, and is cached privately", async () => {
    const loopbackOnly = { ...env, ALLOWED_HOSTS: "localhost,127.0.0.1" };
    const served = await app.fetch(new Request("http://localhost/sources"), loopbackOnly, createExecutionContext());
    expect(served.status).toBe(200);
    expect(served.headers.get("Cache-Control")).toBe("private, max-age=60");
    const rebound = await app.fetch(new Request("http://evil.example.com/sources"), loopbackOnly, createExecutionContext());
    expect(rebound.status).toBe(403);
    expect(await rebound.json()).toEqual({
      error: { code: 403, status: "PERMISSION_DENIED", message: 'Host "evil.example.com" is not served here; allowed hosts: localhost, 127.0.0.1' },
    });
    const foreign = await app.fetch(new Request("http://localhost/sources", { headers: { Origin: "https://evil.example" } }), loopbackOnly, createExecutionContext());
    expect(foreign.status).toBe(403);
  });
});

describe("redactUrlSecrets", () => {
  it("keeps scheme, host, path and fragment, and the sentence around the URL", () => {
    expect(redactUrlSecrets("fetch failed (https://a.dev/x?token=1). Then (http://u@b.dev:8080/y#part), ftp://c.dev/z?q")).toBe(
      "fetch failed (https://a.dev/x?[redacted]). Then (http://[redacted]@b.dev:8080/y#part), ftp://c.dev/z?[redacted]",
    );
    expect(redactUrlSecrets("https://a.dev/docs/ and no secrets")).toBe("https://a.dev/docs/ and no secrets");
    // The last @ of the authority ends the userinfo, as URL parsers read it; an @ in the path is the path's.
    expect(redactUrlSecrets("https://u:p@ss@a.dev/@team?x=1#y")).toBe("https://[redacted]@a.dev/@team?[redacted]#y");
  });
});
