// A measurement, not a test (it may read ../shared): a repository snapshot of
// a documentation folder, made the way GitHub makes one (`git archive
// --prefix=<repo>-<sha>/`, gzipped), then by GNU tar, read by the archive
// reader, must give exactly the pages of the folder (names and content
// hashes); and how long the reader takes to refuse 1 GiB gzip bombs.
//
//   node bench/readers.ts [folder, default ../shared/corpora/dart.dev] [--base-uri https://dart.dev]
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, openAsBlob, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { listFiles, readFiles } from "../cli/files.ts";
import { prepareSite, siteFor } from "../src/documents/ingest/prepare-pages.ts";
import { readArchivePages } from "../src/readers/archive/archive.ts";
import { PAGE_EXTENSION } from "../src/documents/names.ts";
import { tarHeader } from "../test/support/tar-writer.ts";
import { writeTarGz } from "../test/e2e/support/readers.ts";

const { positionals, values } = parseArgs({ allowPositionals: true, options: { "base-uri": { type: "string", default: "https://dart.dev" } } });
const folder = positionals[0] ?? "../shared/corpora/dart.dev";
const site = siteFor(values["base-uri"]);
const scratch = mkdtempSync(join(tmpdir(), "almanac-readers-bench-"));

function run(command: string, args: string[], cwd: string): void {
  const result = spawnSync(command, args, { cwd, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")}: ${result.stderr}`);
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

try {
  const fromFolder = await timed(async () => prepareSite(await readFiles(folder, await listFiles(folder, PAGE_EXTENSION)), site));
  const expected = new Map(fromFolder.value.documents.map((doc) => [doc.name, doc.contentHash]));
  console.log(`bench: readers folder ${folder}: ${expected.size} pages prepared in ${fromFolder.ms.toFixed(0)} ms`);

  // GitHub's archives are `git archive` output: pax headers, a global header with the commit id, one top folder.
  const repo = join(scratch, "repo");
  cpSync(folder, repo, { recursive: true });
  run("git", ["init", "-q"], repo);
  run("git", ["add", "-A"], repo);
  run("git", ["-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-qm", "snapshot"], repo);
  const gitArchive = join(scratch, "github-style.tar.gz");
  run("sh", ["-c", `git archive --format=tar --prefix=site-www-3f2a9c1/ HEAD | gzip -6 > ${gitArchive}`], repo);
  const gnuArchive = join(scratch, "gnu-tar.tar.gz");
  run("tar", ["czf", gnuArchive, "--transform", "s,^\\.,site-www-main,", "."], repo);

  for (const [label, file] of [["git archive (GitHub-style)", gitArchive], ["GNU tar", gnuArchive]] as const) {
    const read = await timed(async () => readArchivePages((await openAsBlob(file)).stream() as ReadableStream<Uint8Array>));
    const prepared = await prepareSite(read.value.pages, site);
    const got = new Map(prepared.documents.map((doc) => [doc.name, doc.contentHash]));
    const missing = [...expected.keys()].filter((name) => !got.has(name));
    const extra = [...got.keys()].filter((name) => !expected.has(name));
    const differing = [...expected].filter(([name, hash]) => got.has(name) && got.get(name) !== hash).map(([name]) => name);
    const same = missing.length === 0 && extra.length === 0 && differing.length === 0;
    console.log(
      `bench: readers ${label}: ${statSync(file).size} bytes, ${read.value.entries} entries, top folder ${read.value.topFolder}/, ` +
        `${got.size} pages in ${read.ms.toFixed(0)} ms; ${same ? "SAME pages as the folder (names and content hashes)" : `DIFFERENT: missing ${missing.length}, extra ${extra.length}, content ${differing.length}`}`,
    );
    if (!same) console.log({ missing: missing.slice(0, 5), extra: extra.slice(0, 5), differing: differing.slice(0, 5) });
  }

  const zeros = new Uint8Array(1024 * 1024);
  const bombs = {
    "1 GiB of zeros in one entry": async function* () {
      yield tarHeader("r/zeros.md", 1024 ** 3);
      for (let i = 0; i < 1024; i += 1) yield zeros;
      yield new Uint8Array(1024);
    },
    "1 GiB of zeros in 1,024 entries": async function* () {
      for (let i = 0; i < 1024; i += 1) {
        yield tarHeader(`r/zeros-${i}.bin`, zeros.byteLength);
        yield zeros;
      }
      yield new Uint8Array(1024);
    },
  };
  for (const [label, blocks] of Object.entries(bombs)) {
    const file = join(scratch, "bomb.tar.gz");
    await writeTarGz(file, blocks(), 9);
    const refused = await timed(async () => readArchivePages((await openAsBlob(file)).stream() as ReadableStream<Uint8Array>).then(() => "read!", (error: Error) => error.message));
    console.log(`bench: readers bomb ${label}: ${statSync(file).size} bytes gzipped, refused in ${refused.ms.toFixed(0)} ms: ${refused.value.slice(0, 90)}…`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
