// `npm run ingest -- archive`: a repository snapshot of corpus/docs, built in
// the test, gives exactly the pages `ingest -- docs corpus/docs` gives, from
// a URL (served by a local server, redirected as GitHub's are) and from a
// file; hostile archives are refused quickly and write nothing.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tarHeader } from "../support/tar-writer.ts";
import { newStateDir } from "./support/harness.ts";
import { corpusPages, ingest, repositoryEntries, serve, tarBlocks, writeTarGz } from "./support/readers.ts";

const BASE = "https://example.com/handbook";
const dir = mkdtempSync(join(tmpdir(), "almanac-archive-"));
const stateDir = newStateDir();
const snapshot = join(dir, "handbook-main.tar.gz");
const pageCount = corpusPages().length;
let server: Awaited<ReturnType<typeof serve>> | undefined;
const requests: string[] = [];

beforeAll(async () => {
  await writeTarGz(snapshot, tarBlocks(repositoryEntries("handbook-3f2a9c1")));
  const bytes = readFileSync(snapshot);
  server = await serve((request, response) => {
    requests.push(`${request.url} ${request.headers["user-agent"]}`);
    // GitHub answers an archive URL with a redirect to codeload; this server does the same within itself.
    if (request.url === "/acme/handbook/archive/refs/heads/main.tar.gz") {
      response.writeHead(302, { location: "/codeload/acme/handbook/tar.gz/refs/heads/main" }).end();
    } else if (request.url === "/codeload/acme/handbook/tar.gz/refs/heads/main") {
      response.writeHead(200, { "content-type": "application/x-gzip", "content-length": bytes.byteLength }).end(bytes);
    } else if (request.url === "/acme/handbook") {
      response.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><h1>acme/handbook</h1>");
    } else {
      response.writeHead(404).end();
    }
  });
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(stateDir, { recursive: true, force: true });
});

/** The summary line of a run: what it changed under BASE. */
const summary = (output: string) => output.split("\n").find((line) => line.startsWith(`${BASE}:`)) ?? output;

describe("ingesting a repository archive", () => {
  it("gives the same pages as the folder, from a URL and from a file, under --path", { timeout: 300_000 }, async () => {
    const folder = await ingest(["docs", "corpus/docs", "--base-uri", BASE, "--persist-to", stateDir]);
    expect(summary(folder.output)).toContain(`${pageCount} added, 0 updated, 0 unchanged, 0 removed`);

    // Same names and same content hashes (title, description, content, data source): every page unchanged, none removed.
    const url = `${server?.url}/acme/handbook/archive/refs/heads/main.tar.gz`;
    const fromUrl = await ingest(["archive", url, "--base-uri", BASE, "--path", "docs", "--prune", "--persist-to", stateDir]);
    expect(fromUrl.status, fromUrl.output).toBe(0);
    expect(summary(fromUrl.output)).toContain(`0 added, 0 updated, ${pageCount} unchanged, 0 removed`);
    expect(fromUrl.output).toContain(`read ${pageCount} pages from ${pageCount + 4} archive entries`);
    expect(fromUrl.output).toContain("top folder handbook-3f2a9c1/ stripped");
    expect(requests).toContain(`/codeload/acme/handbook/tar.gz/refs/heads/main Almanac/0.1.0 (+https://almanac.dev/docs)`);

    const fromFile = await ingest(["archive", snapshot, "--base-uri", BASE, "--path", "docs/", "--prune", "--persist-to", stateDir]);
    expect(summary(fromFile.output)).toContain(`0 added, 0 updated, ${pageCount} unchanged, 0 removed`);
  });

  it("says why a run found nothing, and exits non-zero", async () => {
    const wrongPath = await ingest(["archive", snapshot, "--base-uri", BASE, "--path", "website", "--persist-to", stateDir]);
    expect(wrongPath.status).toBe(1);
    expect(wrongPath.output).toContain(`has no .md, .mdx or .markdown files under --path website (top folder handbook-3f2a9c1/ stripped) among its ${pageCount + 4} entries; nothing was written`);
    const html = await ingest(["archive", `${server?.url}/acme/handbook`, "--base-uri", BASE, "--persist-to", stateDir]);
    expect(html.output).toContain("answers with an HTML page, not an archive; GitHub's look like https://github.com/<owner>/<repo>/archive/refs/heads/<branch>.tar.gz");
    const missing = await ingest(["archive", join(dir, "nope.tar.gz"), "--base-uri", BASE, "--persist-to", stateDir]);
    expect(missing.output).toContain("is neither an http(s) URL nor a file");
    const noBase = await ingest(["archive", snapshot, "--persist-to", stateDir]);
    expect(noBase.output).toContain("--base-uri is required");
  });
});

describe("hostile archives: refused quickly, nothing written", () => {
  const pages = () => repositoryEntries("handbook-3f2a9c1");
  /** A run of the hostile archive with --prune: were anything written or removed, the check below would see it. */
  async function refused(name: string, blocks: Iterable<Uint8Array> | AsyncIterable<Uint8Array>, level = 6) {
    const file = join(dir, `${name}.tar.gz`);
    await writeTarGz(file, blocks, level);
    const run = await ingest(["archive", file, "--base-uri", BASE, "--path", "docs", "--prune", "--persist-to", stateDir]);
    console.log(`hostile archive ${name}: exit ${run.status} in ${run.seconds.toFixed(1)} s: ${run.output.split("\n")[0]}`);
    expect(run.status).toBe(1);
    return run;
  }

  it("refuses an entry climbing out with ..", async () => {
    const run = await refused("dotdot", tarBlocks([...pages(), { path: "handbook-3f2a9c1/docs/../../../outside.md", body: "# Outside" }]));
    expect(run.output).toContain("an entry that leaves its folder (handbook-3f2a9c1/docs/../../../outside.md); the archive is refused and nothing was written");
  });

  it("refuses an absolute path", async () => {
    const run = await refused("absolute", tarBlocks([...pages(), { path: "/etc/cron.d/evil.md", body: "# Evil" }]));
    expect(run.output).toContain("an entry with an absolute path (/etc/cron.d/evil.md)");
  });

  it("refuses a symbolic link pointing out of the archive", async () => {
    const run = await refused("symlink", tarBlocks([...pages(), { path: "handbook-3f2a9c1/docs/passwd.md", type: "2", linkTarget: "/etc/passwd" }]));
    expect(run.output).toContain("a symbolic link handbook-3f2a9c1/docs/passwd.md pointing outside it (to /etc/passwd)");
  });

  it("refuses a hard link pointing out of the archive", async () => {
    const run = await refused("hardlink", tarBlocks([...pages(), { path: "handbook-3f2a9c1/docs/shadow.md", type: "1", linkTarget: "../etc/shadow" }]));
    expect(run.output).toContain("a hard link handbook-3f2a9c1/docs/shadow.md pointing outside it");
  });

  it("refuses a gzip bomb of 1 GiB of zeros in one entry at its header", { timeout: 120_000 }, async () => {
    async function* bomb() {
      yield* tarBlocks(pages(), false);
      yield tarHeader("handbook-3f2a9c1/docs/zeros.md", 1024 ** 3);
      const zeros = new Uint8Array(1024 * 1024);
      for (let i = 0; i < 1024; i += 1) yield zeros;
      yield new Uint8Array(1024);
    }
    const run = await refused("bomb-one-entry", bomb(), 1);
    expect(run.output).toContain("the archive expands past 512 MiB (the expansion cap) at handbook-3f2a9c1/docs/zeros.md (1024 MiB)");
    expect(run.output).toContain("nothing was written");
  });

  it("refuses a gzip bomb of 1 GiB of zeros in many small entries once it passes the ratio cap", { timeout: 120_000 }, async () => {
    async function* bomb() {
      yield* tarBlocks(pages(), false);
      const zeros = new Uint8Array(1024 * 1024);
      for (let i = 0; i < 1024; i += 1) {
        yield tarHeader(`handbook-3f2a9c1/assets/zeros-${i}.bin`, zeros.byteLength);
        yield zeros;
      }
      yield new Uint8Array(1024);
    }
    const run = await refused("bomb-many-entries", bomb(), 1);
    expect(run.output).toMatch(/the archive expands more than 100 times its compressed size \([\d.]+ MiB to over \d+ MiB, the expansion-ratio cap\): a decompression bomb; nothing was written/);
  });

  it("finds nothing in a gzip of zeros that is no archive at all", { timeout: 120_000 }, async () => {
    async function* zeros() {
      const block = new Uint8Array(1024 * 1024);
      for (let i = 0; i < 1024; i += 1) yield block;
    }
    const run = await refused("zeros", zeros(), 1);
    expect(run.output).toContain("has no .md, .mdx or .markdown files under --path docs among its 0 entries; nothing was written");
  });

  it("left the corpus exactly as the folder made it", { timeout: 180_000 }, async () => {
    const check = await ingest(["docs", "corpus/docs", "--base-uri", BASE, "--prune", "--persist-to", stateDir]);
    expect(summary(check.output)).toContain(`0 added, 0 updated, ${pageCount} unchanged, 0 removed`);
  });
});

