// One corpus measured: ingested through the real ingestion path, then its
// query mix through the running dev server as MCP clients call it,
// interleaved with the same SQL on the raw SQLite file.
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { withMigratedLocalEnv } from "../cli/local-env.ts";
import { ingestDocsFolder } from "../cli/ingest-docs.ts";
import { progressPrinter } from "../cli/progress.ts";
import { DEFAULT_CORPUS } from "../src/documents/default-corpus.ts";
import { siteFor } from "../src/documents/ingest/prepare-pages.ts";
import { planRetrieval } from "../src/documents/search/retrieve.ts";
import { fetchCandidates } from "../src/documents/search/candidates.ts";
import { DEFAULT_RANKING } from "../src/documents/search/ranking-weights.ts";
import { documentStatements } from "../src/documents/read/stored-documents.ts";
import { startServer, type RunningServer } from "../test/e2e/support/harness.ts";
import { connectLegacySession, connectStateless, parseServerTiming } from "./mcp-client.ts";
import type { BenchQuery } from "./queries.ts";
import { RawSqlite } from "./raw-sqlite.ts";

/** A corpus to measure: folders of pages, each with the base URI it is published under. */
export interface BenchCorpus {
  label: string;
  sites: { dir: string; baseUri: string }[];
  queries: BenchQuery[];
}

export type BenchTool = "search" | "get" | "answer";

/** Every sample of one corpus, in milliseconds. */
export interface CorpusSamples {
  label: string;
  pages: number;
  chunks: number;
  sourceBytes: number;
  databaseBytes: number;
  ingestSeconds: number;
  reingestSeconds: number;
  /** Round trip of each tool call at the MCP client, 2026-07-28 (stateless: the tool runs in the Worker). */
  server: Record<BenchTool, number[]>;
  /** The same call in a 2025-era session (the tool runs in the session's Durable Object). */
  legacy: Record<BenchTool, number[]>;
  /** Server-Timing of the 2026-07-28 calls: the tool's own time, its D1 part and the rest (ranking, shaping), the whole request in the Worker. */
  tool: Record<BenchTool, number[]>;
  toolD1: Record<BenchTool, number[]>;
  toolShape: Record<BenchTool, number[]>;
  worker: Record<BenchTool, number[]>;
  /** The same statements on the raw file with better-sqlite3. */
  raw: Record<BenchTool, number[]>;
  /** Per query kind, search only: server round trip, in-tool and raw. */
  searchByKind: Record<string, { server: number[]; tool: number[]; raw: number[] }>;
  /** A request the Worker answers without any I/O (404 for an unknown path): the dev server's own floor. */
  floor: number[];
  /** /healthz's one small D1 query (a count of pages): its Server-Timing d1, and the same statement raw. */
  d1Floor: number[];
  rawD1Floor: number[];
  rawNode: string;
}

const tools = (): Record<BenchTool, number[]> => ({ search: [], get: [], answer: [] });

/** How many names get_documents reads per call in the mix (the most it accepts). */
const GET_NAMES = 20;

/** The local D1 database file of a state folder: the largest SQLite file under its d1 folder. */
async function databaseFile(stateDir: string): Promise<string> {
  const dir = join(stateDir, "v3", "d1", "miniflare-D1DatabaseObject");
  const files = (await readdir(dir)).filter((file) => file.endsWith(".sqlite") && file !== "metadata.sqlite");
  const sizes = await Promise.all(files.map(async (file) => ({ file, size: (await stat(join(dir, file))).size })));
  const largest = sizes.sort((a, b) => b.size - a.size)[0];
  if (!largest) throw new Error(`no D1 database file in ${dir}`);
  return join(dir, largest.file);
}

/** Name sets for get_documents: `count` sets of GET_NAMES pages spread over the corpus. */
function nameSets(names: readonly string[], count: number): string[][] {
  const step = Math.max(1, Math.floor(names.length / (count * GET_NAMES)));
  return Array.from({ length: count }, (_, set) => Array.from({ length: GET_NAMES }, (_, i) => names[(set + i * count * step) % names.length] as string));
}

/** The dev server on the corpus's state folder, with answer_query's quota out of the way (a port taken meanwhile is the harness's to retry). */
function startBenchServer(stateDir: string): Promise<RunningServer> {
  return startServer(["--var", "QUOTA_PUBLIC_ANSWER_PER_MINUTE:1000000", "--var", "QUOTA_PUBLIC_ANSWER_PER_DAY:1000000"], stateDir);
}

/** Measures one corpus in the fresh state folder `stateDir`. */
export async function measureCorpus(corpus: BenchCorpus, stateDir: string, options: { repetitions: number; log: (line: string) => void }): Promise<CorpusSamples> {
  const { log, repetitions } = options;
  const samples: CorpusSamples = {
    label: corpus.label,
    pages: 0,
    chunks: 0,
    sourceBytes: 0,
    databaseBytes: 0,
    ingestSeconds: 0,
    reingestSeconds: 0,
    server: tools(),
    legacy: tools(),
    tool: tools(),
    toolD1: tools(),
    toolShape: tools(),
    worker: tools(),
    raw: tools(),
    searchByKind: {},
    floor: [],
    d1Floor: [],
    rawD1Floor: [],
    rawNode: "",
  };
  const kind = (name: string) => (samples.searchByKind[name] ??= { server: [], tool: [], raw: [] });

  let names: string[] = [];
  await withMigratedLocalEnv(stateDir, async (env) => {
    await ingestDocsFolder(env.DB, DEFAULT_CORPUS.dir, siteFor(DEFAULT_CORPUS.baseUri), { prune: false });
    for (const site of corpus.sites) {
      const progress = progressPrinter(`bench: ingest ${corpus.label}`);
      const started = performance.now();
      const result = await ingestDocsFolder(env.DB, site.dir, siteFor(site.baseUri), { prune: false, progress: progress.update });
      progress.done();
      samples.ingestSeconds += (performance.now() - started) / 1000;
      samples.pages += result.added.length;
      const again = performance.now();
      const second = await ingestDocsFolder(env.DB, site.dir, siteFor(site.baseUri), { prune: false });
      samples.reingestSeconds += (performance.now() - again) / 1000;
      if (second.added.length + second.updated.length > 0) throw new Error(`a second ingest of ${site.dir} rewrote pages`);
    }
    const stats = await env.DB.prepare(
      "SELECT (SELECT count(*) FROM chunks c JOIN documents d ON d.name = c.document_name WHERE d.base_uri != ?1) AS chunks, (SELECT sum(content_length_bytes) FROM documents WHERE base_uri != ?1) AS bytes",
    )
      .bind(DEFAULT_CORPUS.baseUri)
      .first<{ chunks: number; bytes: number }>();
    samples.chunks = stats?.chunks ?? 0;
    samples.sourceBytes = stats?.bytes ?? 0;
    const { results } = await env.DB.prepare("SELECT name FROM documents WHERE base_uri != ?1 ORDER BY name").bind(DEFAULT_CORPUS.baseUri).all<{ name: string }>();
    names = results.map((row) => row.name);
    log(`${corpus.label}: ${samples.pages} pages, ${samples.chunks} chunks, ${(samples.sourceBytes / 1e6).toFixed(1)} MB in ${samples.ingestSeconds.toFixed(1)} s; unchanged again in ${samples.reingestSeconds.toFixed(1)} s`);
  });

  const file = await databaseFile(stateDir);
  samples.databaseBytes = (await stat(file)).size;
  const server = await startBenchServer(stateDir);
  const raw = await RawSqlite.open(file);
  samples.rawNode = raw.node;
  const session = await connectLegacySession(server.url);
  const stateless = await connectStateless(server.url);
  try {
    const sets = nameSets(names, 5);
    for (let rep = 0; rep <= repetitions; rep += 1) {
      const keep = rep > 0;
      for (const [index, { kind: queryKind, query }] of corpus.queries.entries()) {
        const plan = planRetrieval(query, { compiled: null });
        const set = sets[index % sets.length] as string[];
        const calls = { search: ["search_documents", { query }], answer: ["answer_query", { query }], get: ["get_documents", { names: set }] } as const;
        const legacy = {
          search: await session.call(...calls.search),
          answer: await session.call(...calls.answer),
          get: await session.call(...calls.get),
        };
        // The floor runs the store's own retrieval (every round trip of it) on the raw file.
        const rawRetrieval = async () => {
          const before = raw.totalMs;
          if (plan) await fetchCandidates(raw, plan, DEFAULT_RANKING);
          return raw.totalMs - before;
        };
        const search = await stateless.call(...calls.search);
        const rawSearch = await rawRetrieval();
        const answer = await stateless.call(...calls.answer);
        const rawAnswer = await rawRetrieval();
        const get = await stateless.call(...calls.get);
        await raw.rows(documentStatements(set));
        const rawGet = raw.lastMs;
        const started = performance.now();
        await (await fetch(new URL("/bench-floor", server.url))).arrayBuffer();
        const floor = performance.now() - started;
        const health = await fetch(new URL("/healthz", server.url));
        await health.arrayBuffer();
        const healthD1 = parseServerTiming(health.headers.get("server-timing")).get("d1") ?? Number.NaN;
        await raw.rows([{ sql: "SELECT count(*) AS n FROM documents", params: [] }]);
        const rawHealth = raw.lastMs;
        if (!keep) continue;
        samples.d1Floor.push(healthD1);
        samples.rawD1Floor.push(rawHealth);
        samples.server.search.push(search.ms);
        samples.server.answer.push(answer.ms);
        samples.server.get.push(get.ms);
        for (const [tool, call] of [["search", search], ["answer", answer], ["get", get]] as const) {
          samples.legacy[tool].push(legacy[tool].ms);
          const timing = (metric: string) => call.serverTiming.get(metric) ?? Number.NaN;
          samples.tool[tool].push(timing("tool"));
          samples.toolD1[tool].push(timing("d1"));
          samples.toolShape[tool].push(timing("shape"));
          samples.worker[tool].push(timing("total"));
        }
        samples.raw.search.push(rawSearch);
        samples.raw.answer.push(rawAnswer);
        samples.raw.get.push(rawGet);
        samples.floor.push(floor);
        kind(queryKind).server.push(search.ms);
        kind(queryKind).tool.push(search.serverTiming.get("tool") ?? Number.NaN);
        kind(queryKind).raw.push(rawSearch);
      }
    }
  } finally {
    await session.close();
    await stateless.close();
    raw.close();
    await server.stop();
  }
  return samples;
}
