// npm run bench [-- --sizes 10000,100000] [--repetitions N] [--no-real] [--out BENCHMARKS.md]
//
// Generates synthetic corpora of the given chunk counts (and uses dart.dev and
// go.dev from ../shared/corpora when present), ingests each through the real
// ingestion path into a fresh local D1 database, and measures the tools in
// process, through the running dev server as an MCP client, and as raw SQLite
// on the same file. Prints every figure as `bench: <name> <value> <unit>` and
// writes the tables into BENCHMARKS.md between its bench markers.
import { existsSync } from "node:fs";
import { mkdtemp, readFile, readdir, rm, stat } from "node:fs/promises";
import { cpus, release, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { wrangler } from "../cli/local-env.ts";
import { runCli } from "../cli/run-cli.ts";
import { measureCorpus, type BenchCorpus, type CorpusSamples } from "./measure.ts";
import { realQueries, syntheticQueries } from "./queries.ts";
import { corpusFigures, figureLine, growthFigures, markdownTables, replaceMarkedSection, type Figure } from "./report.ts";
import { writeSyntheticCorpus } from "./synthetic-corpus.ts";

const USAGE = `usage:
  npm run bench [-- --sizes 10000,100000] [--repetitions N] [--no-real] [--out FILE]

--sizes: chunk counts of the synthetic corpora (default 10000,100000); --repetitions: rounds of
the query mix per corpus (default 8); --no-real: skip dart.dev + go.dev; --out: the Markdown file
whose bench section is rewritten (default BENCHMARKS.md; "-" for none).`;

const REAL_CORPORA = [
  { dir: "../shared/corpora/dart.dev", baseUri: "https://dart.dev" },
  { dir: "../shared/corpora/go.dev", baseUri: "https://go.dev" },
];

const BEGIN = "<!-- bench:begin (written by npm run bench) -->";
const END = "<!-- bench:end -->";

/** A label for a chunk count: 10000 → "10k". */
const sizeLabel = (chunks: number) => (chunks % 1000 === 0 ? `${chunks / 1000}k` : String(chunks));

/** The deployable bundle, as `wrangler deploy` would upload it: raw and gzip bytes. */
async function bundleSize(): Promise<{ raw: number; gzip: number }> {
  const outdir = await mkdtemp(join(tmpdir(), "almanac-bundle-"));
  try {
    wrangler(["deploy", "--dry-run", "--outdir", outdir], { quiet: true });
    let raw = 0;
    let gzip = 0;
    for (const file of await readdir(outdir, { recursive: true })) {
      if (file.endsWith(".map") || file.endsWith(".json")) continue;
      const path = join(outdir, file);
      if (!(await stat(path)).isFile()) continue;
      const bytes = await readFile(path);
      raw += bytes.length;
      gzip += gzipSync(bytes, { level: 9 }).length;
    }
    return { raw, gzip };
  } finally {
    await rm(outdir, { recursive: true, force: true });
  }
}

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      sizes: { type: "string", default: "10000,100000" },
      repetitions: { type: "string", default: "8" },
      "no-real": { type: "boolean", default: false },
      out: { type: "string", default: "BENCHMARKS.md" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) return console.log(USAGE);
  const sizes = values.sizes.split(",").map(Number);
  if (sizes.some((size) => !Number.isInteger(size) || size < 100)) throw new Error("--sizes takes chunk counts of at least 100, e.g. 10000,100000");
  const repetitions = Number(values.repetitions);
  const started = performance.now();
  const log = (line: string) => console.error(`bench: # ${line}`);
  const figures: Figure[] = [];
  const emit = (list: readonly Figure[]) => {
    for (const figure of list) console.log(figureLine(figure));
    figures.push(...list);
  };

  const bundle = await bundleSize();
  emit([
    { name: "bundle_raw_kb", value: bundle.raw / 1024, unit: "KiB" },
    { name: "bundle_gzip_kb", value: bundle.gzip / 1024, unit: "KiB" },
  ]);

  const work = await mkdtemp(join(tmpdir(), "almanac-bench-"));
  const measured: CorpusSamples[] = [];
  try {
    const corpora: (BenchCorpus & { make?: () => Promise<void> })[] = sizes.map((size) => {
      const dir = join(work, `synthetic-${size}`);
      return {
        label: sizeLabel(size),
        sites: [{ dir, baseUri: "https://docs.example.com" }],
        queries: syntheticQueries(),
        make: async () => {
          const written = await writeSyntheticCorpus(dir, size);
          log(`generated ${written.pages} pages, ${written.chunks} chunks, ${(written.bytes / 1e6).toFixed(1)} MB`);
        },
      };
    });
    if (!values["no-real"] && REAL_CORPORA.every((corpus) => existsSync(corpus.dir))) {
      corpora.push({ label: "dartgo", sites: REAL_CORPORA, queries: await realQueries("eval/questions/dart-go.json") });
    }
    for (const corpus of corpora) {
      await corpus.make?.();
      const stateDir = await mkdtemp(join(work, `state-${corpus.label}-`));
      const samples = await measureCorpus(corpus, stateDir, { repetitions, log });
      await rm(stateDir, { recursive: true, force: true });
      for (const site of corpus.sites) if (site.dir.startsWith(work)) await rm(site.dir, { recursive: true, force: true });
      measured.push(samples);
      emit(corpusFigures(samples));
    }
    const [small, large] = sizes.map(sizeLabel);
    if (small && large) emit(growthFigures(measured, small, large));
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  const seconds = (performance.now() - started) / 1000;
  emit([{ name: "bench_wall_s", value: seconds, unit: "s" }]);
  if (values.out !== "-") await writeReport(values.out, figures, measured, { argv, seconds });
}

/** Rewrites the bench section of `file` (creating the file if needed); text outside the markers is kept. */
async function writeReport(file: string, figures: readonly Figure[], measured: readonly CorpusSamples[], run: { argv: string[]; seconds: number }): Promise<void> {
  const cpu = cpus();
  const section = [
    BEGIN,
    "",
    `Run ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC with \`npm run bench${run.argv.length ? ` -- ${run.argv.join(" ")}` : ""}\`, ${run.seconds.toFixed(0)} s, on ${cpu.length} × ${cpu[0]?.model ?? "unknown CPU"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Linux ${release()}; the tools in Node ${process.version}, raw SQLite (better-sqlite3) under ${measured[0]?.rawNode ?? "?"}.`,
    "",
    `Bundle: ${figures.find((f) => f.name === "bundle_raw_kb")?.value.toFixed(0)} KiB raw, ${figures.find((f) => f.name === "bundle_gzip_kb")?.value.toFixed(0)} KiB gzip.`,
    "",
    markdownTables(figures, measured.map((corpus) => corpus.label)),
    "",
    "Growth of typical searches (keyword, identifier, question), p50: " +
      ["tool", "server", "raw"].map((key) => `${key} ${figures.find((f) => f.name.startsWith(`search_p50_growth_${key}_`))?.value.toFixed(2) ?? "—"}×`).join(", ") + ".",
    "",
    "<details><summary>Every figure</summary>",
    "",
    "```",
    ...figures.map(figureLine),
    "```",
    "",
    "</details>",
    "",
    END,
  ].join("\n");
  await replaceMarkedSection(file, BEGIN, END, section);
  console.error(`bench: # wrote ${file}`);
}

runCli("bench", USAGE, main);
