// npm run bench:vectors -- [--chunks 10000,50000] [--dimensions 768] [--queries 5]
//
// How long the D1 vector index (src/embeddings/d1-index.ts) takes to answer one query: N random
// unit vectors are written to chunk_vectors of a scratch local D1 database (the one `npm start`
// would use, through wrangler's bindings), then the very adapter search uses scans them all.
// Run locally, every D1 read crosses wrangler's proxy into workerd, so this is an upper bound
// for the reads; the dot products run in Node, as fast as V8 runs them in a Worker.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { withMigratedLocalEnv } from "../cli/local-env.ts";
import { planBatches } from "../src/d1/batches.ts";
import { d1VectorIndex, encodeVector } from "../src/embeddings/d1-index.ts";
import { normalise } from "../src/embeddings/embedder.ts";

const MODEL = "bench:random";

/** A reproducible pseudo-random unit vector (mulberry32). */
function randomVector(seed: number, dimensions: number): Float32Array {
  let state = seed >>> 0;
  const values = new Array<number>(dimensions);
  for (let i = 0; i < dimensions; i += 1) {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    values[i] = ((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5;
  }
  return normalise(values);
}

async function fill(db: D1Database, from: number, to: number, dimensions: number): Promise<void> {
  const groups = [];
  for (let i = from; i < to; i += 1) {
    groups.push({
      statements: [
        db
          .prepare("INSERT INTO chunk_vectors (vector_id, base_uri, document_name, chunk_id, text_hash, model, dimensions, vector) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)")
          .bind(`v${i}`, "https://bench.example", `documents/bench.example/p${Math.floor(i / 10)}`, `c${i % 10}`, "h", MODEL, dimensions, encodeVector(randomVector(i + 1, dimensions))),
      ],
      bytes: dimensions * 4 + 100,
    });
  }
  for (const batch of planBatches(groups)) {
    // wrangler's local proxy drops a connection now and then over thousands of batches; a batch of inserts can be repeated.
    for (let attempt = 0; ; attempt += 1) {
      try {
        await db.batch(batch);
        break;
      } catch (error) {
        if (attempt >= 3 || !/fetch failed|other side closed|ECONNRESET|socket hang up/i.test(`${String(error)} ${String((error as { cause?: unknown }).cause)}`)) throw error;
        await new Promise((resolve) => setTimeout(resolve, 1000 * (attempt + 1)));
      }
    }
  }
}

/** The same pages of rows the scan reads, without the vectors: what the round trips alone cost. */
async function readIdsOnly(db: D1Database): Promise<number> {
  const started = performance.now();
  let after = 0;
  for (;;) {
    const { results } = await db
      .prepare("SELECT rowid AS row, vector_id AS id FROM chunk_vectors WHERE model = ?1 AND rowid > ?2 ORDER BY rowid LIMIT 1000")
      .bind(MODEL, after)
      .all<{ row: number }>();
    const last = results[results.length - 1];
    if (!last || results.length < 1000) break;
    after = last.row;
  }
  return performance.now() - started;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { chunks: { type: "string", default: "10000,50000" }, dimensions: { type: "string", default: "768" }, queries: { type: "string", default: "5" } },
  });
  const sizes = values.chunks.split(",").map(Number).sort((a, b) => a - b);
  const dimensions = Number(values.dimensions);
  const queries = Number(values.queries);
  const stateDir = await mkdtemp(join(tmpdir(), "almanac-vector-scan-"));
  try {
    await withMigratedLocalEnv(stateDir, async (env) => {
      console.log(`| chunks | dimensions | median query (ms) | slowest (ms) | the same pages without vectors (ms) | dot products alone (ms) |`);
      console.log(`|---|---|---|---|---|---|`);
      let filled = 0;
      for (const size of sizes) {
        const started = performance.now();
        await fill(env.DB, filled, size, dimensions);
        console.error(`vector-scan: wrote ${size - filled} vectors in ${((performance.now() - started) / 1000).toFixed(1)} s`);
        filled = size;
        const index = d1VectorIndex(env.DB, { maxChunks: Number.POSITIVE_INFINITY });
        const times: number[] = [];
        for (let q = 0; q < queries; q += 1) {
          const begun = performance.now();
          const matches = await index.query({ vector: randomVector(1_000_000 + q, dimensions), topK: 50, model: MODEL });
          times.push(performance.now() - begun);
          if (matches.length !== 50) throw new Error(`expected 50 matches, got ${matches.length}`);
        }
        // The comparisons alone, on vectors already in memory: what the Worker's CPU spends.
        const vectors = Array.from({ length: Math.min(size, 5000) }, (_, i) => randomVector(i + 1, dimensions));
        const query = randomVector(7, dimensions);
        const begun = performance.now();
        let sink = 0;
        for (let i = 0; i < size; i += 1) {
          const vector = vectors[i % vectors.length] as Float32Array;
          for (let d = 0; d < dimensions; d += 1) sink += (vector[d] as number) * (query[d] as number);
        }
        const dots = performance.now() - begun;
        times.sort((a, b) => a - b);
        const median = times[Math.floor(times.length / 2)] ?? 0;
        const idsOnly = await readIdsOnly(env.DB);
        console.log(`| ${size} | ${dimensions} | ${median.toFixed(0)} | ${(times[times.length - 1] ?? 0).toFixed(0)} | ${idsOnly.toFixed(0)} | ${dots.toFixed(0)}${sink === 42 ? "" : ""} |`);
      }
    });
  } finally {
    await rm(stateDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(`vector-scan: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
