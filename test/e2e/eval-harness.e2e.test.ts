// `npm run eval` over a crawled site, as the site benchmark runs it: a tiny documentation site in a
// folder stands for a Debian package's (the folder exists, so nothing is downloaded), served on
// 127.0.0.1 by the harness, crawled by the real site reader, asked through the real tools.
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
let dir: string;

const page = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title} — Tiny Docs</title></head><body>
   <nav><a href="index.html">Home</a> <a href="pools.html">Pools</a> <a href="retries.html">Retries</a></nav>
   <main><h1>${title}</h1>${body}</main><footer>Tiny Docs, all rights reserved</footer></body></html>`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "almanac-eval-site-"));
  const site = join(dir, "site");
  await run("mkdir", ["-p", site]);
  await writeFile(join(site, "index.html"), page("Tiny Docs", `<p>Start with <a href="pools.html">connection pools</a> or <a href="retries.html">retries</a>.</p>`));
  await writeFile(
    join(site, "pools.html"),
    page("Connection pools", `<section id="sizing"><h2>Sizing a pool</h2><p>The pool keeps at most <code>max_connections = 12</code> open sockets by default.</p></section>`),
  );
  await writeFile(
    join(site, "retries.html"),
    page("Retries", `<h2 id="backoff">Backoff</h2><p>A failed request is retried with exponential backoff, doubling the wait each time.</p>`),
  );
  const corpora = [{ package: "almanac-tiny-doc", serve: site, start: "index.html", baseUri: "https://tiny.example/docs" }];
  const questions = [
    { id: "t1", half: "tune", kind: "fact", query: "how many sockets does the connection pool keep open by default?", relevant: ["documents/tiny.example/docs/pools.html"], fact: "max_connections = 12" },
    { id: "t2", half: "tune", kind: "paraphrase", query: "wait longer between retried requests", relevant: ["documents/tiny.example/docs/retries.html"], fact: "exponential backoff" },
    { id: "t3", half: "holdout", kind: "keyword", query: "retries backoff", relevant: ["documents/tiny.example/docs/retries.html"], fact: "exponential backoff" },
  ];
  await writeFile(join(dir, "tiny.json"), JSON.stringify({ description: "a tiny site", corpora, questions }));
  await writeFile(join(dir, "vague.json"), JSON.stringify({ corpora, questions: [{ ...questions[0], fact: "sockets" }] }));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const evalCommand = (...args: string[]) => run(process.execPath, ["eval/run.ts", ...args], { encoding: "utf8", timeout: 120_000 });

describe("npm run eval over a site served from a package's folder", () => {
  it("crawls it, asks the tuning half through the real tools beside BM25, and reports answers and page quality", async () => {
    const { stdout } = await evalCommand(join(dir, "tiny.json"), "--pages");
    expect(stdout).toContain("over https://tiny.example/docs (Debian almanac-tiny-doc) (tune half)");
    // Both tuning questions find their page first, and the answer leads from it and states the fact.
    const all = stdout.split("\n").find((line) => line.startsWith("| all |")) ?? "";
    const cells = all.split("|").map((cell) => cell.trim());
    const header = (stdout.split("\n").find((line) => line.startsWith("| questions |")) ?? "").split("|").map((cell) => cell.trim());
    const cell = (name: string) => cells[header.indexOf(name)];
    expect(cell("n")).toBe("2");
    expect(cell("Almanac R@5")).toBe("1.000");
    expect(cell("Almanac MRR@10")).toBe("1.000");
    expect(cell("lead from a right page")).toBe("1.000");
    expect(cell("fact in answer")).toBe("1.000 (2)");
    expect(Number(cell("median answer chars"))).toBeGreaterThan(20);
    // The page-quality table: 3 pages (the home page once, though crawled as / and /index.html), every chunk
    // link with a fragment pointing at an id the live page has (the section's own id on its <section>), the nav
    // and footer not stored, every page read from <main>.
    const quality = stdout.split("\n").find((line) => line.startsWith("| tiny |")) ?? "";
    expect(quality).toBe("| tiny | 3 | 3 | 100.0 % (2 of 2) | 0.0 % (0 of 3) | 0.0 % (0 of 3) | 0 | 0 | 0 | main 3 |");
  });

  it("reads the held-out half in aggregate only", async () => {
    const { stdout } = await evalCommand(join(dir, "tiny.json"), "--half", "holdout");
    expect(stdout).toContain("(holdout half)");
    expect(stdout).toMatch(/^\| tiny \| 1 \+ 0 \| /m);
    expect(stdout).not.toContain("| keyword |");
    await expect(evalCommand(join(dir, "tiny.json"), "--half", "holdout", "--misses")).rejects.toMatchObject({
      stderr: expect.stringContaining("the held-out half is read in aggregate only"),
    });
  });

  it("refuses a question file whose fact is one common word, saying what to give instead", async () => {
    await expect(evalCommand(join(dir, "vague.json"))).rejects.toMatchObject({
      stderr: expect.stringContaining('t1: the fact "sockets" is one common word'),
    });
  });
});
