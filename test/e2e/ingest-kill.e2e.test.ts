// Nothing lost on a kill: `npm run ingest -- docs` killed (SIGKILL) at random
// points while it rewrites a site, ten times, while the dev server serves the
// same local database. After every kill the site is served wholly as its old
// or wholly as its new version (a run is published in one transaction), and
// search still finds it; a run to the end completes the new version.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "./support/harness.ts";

// A server of its own: the site this test leaves behind would make Almanac's own pages step aside
// for every later file on the shared server (they take part only while no other site is loaded).
let server: RunningServer;
let serverUrl = "";
let stateDir = "";

beforeAll(async () => {
  server = await startServer();
  serverUrl = server.url;
  stateDir = server.stateDir;
});
const BASE_URI = "https://killtest.example/docs";
const PAGES = 160;
const KILLS = 10;

/** A site of PAGES pages, each saying which version it is in its title, a heading and its body. */
function site(version: "one" | "two"): string {
  const dir = mkdtempSync(join(tmpdir(), `almanac-kill-${version}-`));
  for (let i = 0; i < PAGES; i += 1) {
    const sections = Array.from({ length: 6 }, (_, s) => `## Section ${s} of page ${i}\n\nKilltest version ${version} text for page ${i}, section ${s}. ${"Filler words about ingestion. ".repeat(30)}\n`);
    writeFileSync(join(dir, `page-${String(i).padStart(3, "0")}.md`), `---\ntitle: Page ${i} version ${version}\n---\n\n${sections.join("\n")}`);
  }
  return dir;
}

const folders = { one: site("one"), two: site("two") };

afterAll(async () => {
  await server?.stop();
  for (const dir of Object.values(folders)) rmSync(dir, { recursive: true, force: true });
});

interface IngestRun {
  code: number | null;
  output: string;
  /** Milliseconds from the start until the CLI said it is writing. */
  writingAt: number;
  /** Milliseconds from then until it exited. */
  writeMs: number;
}

/**
 * Runs `npm run ingest -- docs` on a folder; with `killAfter`, kills it
 * (SIGKILL, its whole process group) that long after it started, or after it
 * began writing.
 */
function runIngest(dir: string, kill?: { killAfter: number; from: "start" | "writing" }): Promise<IngestRun> {
  const started = Date.now();
  const child = spawn(process.execPath, ["cli/ingest.ts", "docs", dir, "--base-uri", BASE_URI, "--persist-to", stateDir], { stdio: ["ignore", "pipe", "pipe"], detached: true });
  let output = "";
  let writingAt = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const killLater = () => {
    timer = setTimeout(() => child.pid && process.kill(-child.pid, "SIGKILL"), kill?.killAfter ?? 0);
  };
  if (kill?.from === "start") killLater();
  const read = (data: Buffer) => {
    output += data.toString();
    if (writingAt === 0 && /writing \d+ pages?/.test(output)) {
      writingAt = Date.now() - started;
      if (kill?.from === "writing") killLater();
    }
  };
  child.stdout.on("data", read);
  child.stderr.on("data", read);
  return new Promise((resolve) => {
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output, writingAt, writeMs: Date.now() - started - writingAt });
    });
  });
}

/** Every page of the site, through the REST facade (20 per batchGet): each must be one whole version. */
async function versionsServed(): Promise<{ one: number; two: number; mixed: string[] }> {
  const counts = { one: 0, two: 0, mixed: [] as string[] };
  for (let start = 0; start < PAGES; start += 20) {
    const names = Array.from({ length: Math.min(20, PAGES - start) }, (_, k) => `documents/killtest.example/docs/page-${String(start + k).padStart(3, "0")}`);
    const query = names.map((name) => `names=${encodeURIComponent(name)}`).join("&");
    const response = await fetch(`${serverUrl}/v1/documents:batchGet?${query}`);
    expect(response.status, await response.clone().text()).toBe(200);
    const { documents } = (await response.json()) as { documents: { name: string; title: string; content: string }[] };
    for (const document of documents) {
      const version = document.title.endsWith("version two") ? "two" : "one";
      const other = version === "one" ? "two" : "one";
      if (document.content.includes(`Killtest version ${other}`) || !document.content.includes(`Killtest version ${version}`)) counts.mixed.push(document.name);
      else counts[version] += 1;
    }
  }
  return counts;
}

/** The pages search finds for one page's words: the index must agree with the pages. */
async function searchFinds(page: number): Promise<string[]> {
  const response = await fetch(`${serverUrl}/v1/documents:searchDocumentChunks?query=${encodeURIComponent(`killtest page ${page} section 3`)}&filter=${encodeURIComponent(`data_source = "killtest.example"`)}`);
  const { results } = (await response.json()) as { results?: { parent: string }[] };
  return (results ?? []).map((hit) => hit.parent);
}

describe("an ingestion killed at random points", () => {
  it("leaves the whole site on one version, and a rerun completes it", async () => {
    const first = await runIngest(folders.one);
    expect(first.code, first.output).toBe(0);
    expect(await versionsServed()).toEqual({ one: PAGES, two: 0, mixed: [] });

    // How long the writing of a full rewrite takes: the kills land inside it (and, twice, while pages are still prepared).
    const timing = await runIngest(folders.two);
    expect(timing.code).toBe(0);
    expect(await versionsServed()).toEqual({ one: 0, two: PAGES, mixed: [] });
    expect((await runIngest(folders.one)).code).toBe(0);

    // Each run rewrites the site to the other version than the last run aimed at, so every kill interrupts a real rewrite.
    const outcomes: string[] = [];
    for (let kill = 0; kill < KILLS; kill += 1) {
      const target = kill % 2 === 0 ? "two" : "one";
      const whilePreparing = kill < 2;
      const delay = Math.round((whilePreparing ? timing.writingAt : timing.writeMs) * Math.random());
      const run = await runIngest(folders[target], { killAfter: delay, from: whilePreparing ? "start" : "writing" });
      const served = await versionsServed();
      outcomes.push(`to version ${target}, kill ${delay} ms after ${whilePreparing ? "start" : "writing began"}: ${run.code === 0 ? "finished first" : "killed"}; served ${served.one} × one, ${served.two} × two`);
      expect(served.mixed, outcomes.join("\n")).toEqual([]);
      expect(served.one + served.two, outcomes.join("\n")).toBe(PAGES);
      // A run is published in one transaction (generations): the site is wholly one version, never some pages of each.
      expect([served.one, served.two], outcomes.join("\n")).toContain(PAGES);
      expect((await searchFinds(7))[0], outcomes.join("\n")).toBe("documents/killtest.example/docs/page-007");
    }
    console.log(`ingest kills:\n${outcomes.join("\n")}`);

    const last = await runIngest(folders.two);
    expect(last.code, last.output).toBe(0);
    expect(await versionsServed()).toEqual({ one: 0, two: PAGES, mixed: [] });
  }, 900_000);
});
