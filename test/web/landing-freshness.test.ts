// GET / shows each kept source's freshness, as GET /sources answers it, and nothing of its options.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { addSource, claimSource, finishRun } from "../../src/sources/sources.ts";
import { setHookSalt } from "../../src/sources/hook-secrets.ts";
import { recordRunPages } from "../../src/sources/pushes.ts";
import { loadCorpus } from "../support/corpus.ts";
import { attributes, getPage, text, texts, visitor } from "../support/landing-page.ts";

const HOUR = 3600;
/** 2026-12-01 22:00:00 UTC: when the runs below start. */
const START = Date.UTC(2026, 11, 1, 22, 0, 0);
/** Strings only a source's URL or options hold: none may reach the page. */
const SECRETS = ["URLSECRET", "access_token", "robot", "PASSWORD123", "BASESECRET", "secret-area", "hidden-glob", "/internal/"];

beforeAll(async () => {
  await loadCorpus();
});

/** The text of each <dd> of one source's facts, by its <dt>. */
async function facts(html: string, name: string): Promise<Record<string, string>> {
  const terms = await texts(html, `#freshness [data-source="${name}"] dt`);
  const values = await texts(html, `#freshness [data-source="${name}"] dd`);
  return Object.fromEntries(terms.map((term, index) => [term, (values[index] ?? "").replace(/\s+/g, " ").trim()]));
}

async function keepSources(): Promise<void> {
  // Refreshes the default corpus's own site: a run that succeeded.
  await addSource(env.DB, { name: "almanac-docs", kind: "site", url: "https://almanac.dev/docs/", every: HOUR }, START - 1000);
  await claimSource(env.DB, "almanac-docs", "run-1", START);
  await finishRun(env.DB, "almanac-docs", "run-1", { outcome: "succeeded", counts: { added: 3, updated: 2, unchanged: 1234, removed: 1, skipped: 4 } }, START + 90_000);
  // A private site whose URL and options carry credentials: a run that failed.
  await addSource(
    env.DB,
    {
      name: "private-wiki",
      kind: "site",
      url: "https://wiki.example.com/start?access_token=URLSECRET",
      options: { "base-uri": "https://robot:PASSWORD123@wiki.example.com/internal/?token=BASESECRET", include: ["secret-area/**"], exclude: ["hidden-glob/*"] },
      every: 24 * HOUR,
    },
    START - 1000,
  );
  await claimSource(env.DB, "private-wiki", "run-2", START);
  await finishRun(env.DB, "private-wiki", "run-2", { outcome: "failed", error: "the site answered 500 Internal Server Error on page 7 of 20" }, START + 30_000);
  // An llms.txt source whose first run is still going.
  await addSource(env.DB, { name: "feed", kind: "llms", url: "https://llms.example.org/llms.txt", every: HOUR }, START - 1000);
  await claimSource(env.DB, "feed", "run-3", START + 60_000);
}

describe("Refreshed sources on the landing page", () => {
  it("is not shown where no source is kept: data sources pushed by the CLI show as before", async () => {
    const { html } = await getPage("/", visitor("198.51.100.40"));
    expect(await texts(html, "#freshness")).toEqual([]);
    expect(await text(html, "#here .card:nth-child(1) tbody th")).toBe("almanac.dev");
    expect(await texts(html, "#here h3")).toEqual(["Documentation", "Query library", "Endpoints", "Your answer_query allowance"]);
  });

  it("shows each source's host, pages, last success, next due and last run, as GET /sources answers them", async () => {
    await keepSources();
    const { response, html } = await getPage("/", visitor("198.51.100.41"));
    expect(response.status).toBe(200);
    const answer = JSON.parse((await getPage("/sources")).html) as { sources: { name: string; host: string; pageCount: number; lastSuccessTime: string | null; nextDue: string }[] };
    expect(answer.sources.map((source) => source.name)).toEqual(["almanac-docs", "feed", "private-wiki"]);

    expect(await texts(html, "#here h3")).toEqual(["Documentation", "Refreshed sources", "Query library", "Endpoints", "Your answer_query allowance"]);
    expect((await texts(html, "#freshness h4")).map((heading) => heading.replace(/\s+/g, " ").trim())).toEqual(["almanac-docs site", "feed llms", "private-wiki site"]);

    const pages = await env.DB.prepare("SELECT count(*) AS n FROM documents WHERE data_source = 'almanac.dev'").first<{ n: number }>();
    expect(pages?.n).toBeGreaterThan(20);
    expect(await facts(html, "almanac-docs")).toEqual({
      Host: "almanac.dev",
      Pages: String(pages?.n),
      "Last success": "2026-12-01 22:01 UTC",
      "Next due": "2026-12-01 23:01 UTC",
      "Last run": "succeeded at 2026-12-01 22:01 UTC",
      Changes: "3 added, 2 updated, 1,234 unchanged, 1 removed, 4 skipped",
    });
    expect(await facts(html, "private-wiki")).toEqual({
      Host: "wiki.example.com",
      Pages: "0",
      "Last success": "never",
      "Next due": "2026-12-02 22:00 UTC",
      "Last run": "failed at 2026-12-01 22:00 UTC",
      Changes: "0 added, 0 updated, 0 unchanged, 0 removed, 0 skipped",
      Error: "the site answered 500 Internal Server Error on page 7 of 20",
    });
    expect(await text(html, '#freshness [data-source="private-wiki"] .field-error')).toBe("the site answered 500 Internal Server Error on page 7 of 20");
    expect(await facts(html, "feed")).toEqual({ Host: "llms.example.org", Pages: "0", "Last success": "never", "Next due": "2026-12-01 21:59 UTC", "Last run": "running since 2026-12-01 22:01 UTC" });

    // The machine-readable times are GET /sources' own, in RFC 3339.
    for (const source of answer.sources) {
      const shown = [source.lastSuccessTime, source.nextDue].filter((time) => time !== null);
      const times = await attributes(html, `#freshness [data-source="${source.name}"] time`, "datetime");
      expect(times.slice(0, shown.length)).toEqual(shown);
      expect((await facts(html, source.name)).Host).toBe(source.host);
      expect((await facts(html, source.name)).Pages).toBe(source.pageCount.toLocaleString("en-US"));
    }
    expect(await attributes(html, '#freshness [data-source="almanac-docs"] time', "datetime")).toEqual([
      "2026-12-01T22:01:30.000Z",
      "2026-12-01T23:01:30.000Z",
      "2026-12-01T22:01:30.000Z",
    ]);

    // Nothing of a source's URL or options, which may carry credentials, reaches the page.
    expect(html).toContain("wiki.example.com");
    for (const secret of SECRETS) expect(html, secret).not.toContain(secret);
  });

  it("shows a pushed source's last push, the pages its run read and wrote, and push to published, never its hook's salt", async () => {
    await addSource(env.DB, { name: "pushed", kind: "archive", url: "https://git.example.com/acme/docs/archive/refs/heads/main.tar.gz", every: HOUR }, START - 1000);
    await setHookSalt(env.DB, "pushed", "SALTSECRET", START - 500);
    await env.DB.prepare("UPDATE sources SET last_push_time = ?1, last_push_commit = 'c0ffee0123456789' WHERE name = 'pushed'").bind(START).run();
    await claimSource(env.DB, "pushed", "run-4", START);
    await recordRunPages(env.DB, "pushed", "run-4", { read: 1, written: 1, pushToPublishedMs: 640 });
    await finishRun(env.DB, "pushed", "run-4", { outcome: "succeeded", counts: { added: 0, updated: 1, unchanged: 0, removed: 0, skipped: 0 } }, START + 1000);
    const { html } = await getPage("/", visitor("198.51.100.42"));
    expect(await facts(html, "pushed")).toMatchObject({
      Changes: "0 added, 1 updated, 0 unchanged, 0 removed, 0 skipped; 1 page read, 1 written",
      "Last push": "2026-12-01 22:00 UTC c0ffee012345 — published 0.6 s after the push",
    });
    const answer = (await getPage("/sources")).html;
    expect(JSON.parse(answer).sources.find((source: { name: string }) => source.name === "pushed")).toMatchObject({
      hook: { setTime: "2026-12-01T21:59:59.500Z" },
      lastPush: { time: "2026-12-01T22:00:00.000Z", commit: "c0ffee0123456789" },
      lastRun: { pagesRead: 1, pagesWritten: 1, pushToPublishedMs: 640 },
    });
    expect(html).not.toContain("SALTSECRET");
    expect(answer).not.toContain("SALTSECRET");
  });
});
