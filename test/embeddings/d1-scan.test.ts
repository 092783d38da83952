// The D1 vector index scans every vector of the model, a page of rows at a
// time: it must stop reading when its query's deadline fires (search has
// given up on it by then), and refuse a corpus past the size it is meant for,
// naming the index that is.
import { env } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { D1_SCAN_MAX_CHUNKS, SCAN_PAGE, VectorScanCeilingError, d1VectorIndex, encodeVector } from "../../src/embeddings/d1-index.ts";
import { normalise } from "../../src/embeddings/embedder.ts";

const MODEL = "test:scan";

/** `count` stored vectors of `dimensions`, in statements of 20 rows (D1 binds at most 100 values). */
async function storeVectors(count: number, dimensions: number): Promise<void> {
  const statements: D1PreparedStatement[] = [];
  for (let start = 0; start < count; start += 20) {
    const rows = Array.from({ length: Math.min(20, count - start) }, (_, i) => start + i);
    statements.push(
      env.DB.prepare(
        `INSERT INTO chunk_vectors (vector_id, base_uri, document_name, chunk_id, text_hash, model, dimensions, vector) VALUES ${rows.map(() => "(?, 'https://scan.example', 'documents/scan.example/page', ?, 'h', ?, ?, ?)").join(", ")}`,
      ).bind(...rows.flatMap((n) => [`v${n}`, `c${n}`, MODEL, dimensions, encodeVector(normalise(Array.from({ length: dimensions }, (_, d) => Math.sin(n * 7 + d))))])),
    );
  }
  for (let start = 0; start < statements.length; start += 40) await env.DB.batch(statements.slice(start, start + 40));
}

const query = (dimensions: number, signal?: AbortSignal) => ({ vector: normalise(Array.from({ length: dimensions }, (_, d) => Math.cos(d))), topK: 5, model: MODEL, ...(signal ? { signal } : {}) });

beforeEach(async () => {
  await env.DB.prepare("DELETE FROM chunk_vectors WHERE model = ?1").bind(MODEL).run();
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the D1 vector scan", () => {
  it("finds the nearest vectors across pages of rows", async () => {
    await storeVectors(SCAN_PAGE + 200, 8);
    const matches = await d1VectorIndex(env.DB).query(query(8));
    expect(matches).toHaveLength(5);
    expect(matches.map((match) => match.score)).toEqual([...matches.map((match) => match.score)].sort((a, b) => b - a));
  });

  it("stops reading once its signal fires: no page is read after the deadline", async () => {
    await storeVectors(3 * SCAN_PAGE, 8);
    const controller = new AbortController();
    const original = env.DB.prepare.bind(env.DB);
    // The deadline fires while the first page is read.
    const prepare = vi.spyOn(env.DB, "prepare").mockImplementation((sql: string) => {
      controller.abort(new Error("the d1 vector index gave no answer within its deadline"));
      return original(sql);
    });
    await expect(d1VectorIndex(env.DB).query(query(8, controller.signal))).rejects.toThrow("within its deadline");
    expect(prepare).toHaveBeenCalledTimes(1);
  });

  it("stops within one page of a real deadline over 10,000 vectors of 768 dimensions (logged, not asserted)", async () => {
    await storeVectors(D1_SCAN_MAX_CHUNKS, 768);
    const deadline = 100;
    // As hybrid.ts's withDeadline gives it: a controller aborted by a timer.
    const controller = new AbortController();
    let firedAt = 0;
    const started = Date.now();
    const timer = setTimeout(() => {
      firedAt = Date.now();
      controller.abort(new Error("deadline"));
    }, deadline);
    const outcome = await d1VectorIndex(env.DB)
      .query(query(768, controller.signal))
      .then(
        () => "finished",
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
    clearTimeout(timer);
    const stopped = Date.now();
    console.log(
      `D1 scan of ${D1_SCAN_MAX_CHUNKS} vectors (768 dims), ${deadline} ms deadline: ${outcome} after ${stopped - started} ms` +
        (firedAt ? `, ${stopped - firedAt} ms after the deadline fired` : ""),
    );
    expect(["deadline", "finished"]).toContain(outcome);
  });

  it("refuses a corpus past its ceiling, naming VECTOR_INDEX=vectorize", async () => {
    await storeVectors(150, 8);
    const refused = d1VectorIndex(env.DB, { maxChunks: 100 }).query(query(8));
    await expect(refused).rejects.toBeInstanceOf(VectorScanCeilingError);
    await expect(refused).rejects.toThrow("VECTOR_INDEX=vectorize");
    expect(await d1VectorIndex(env.DB, { maxChunks: 150 }).query(query(8))).toHaveLength(5);
  });
});
