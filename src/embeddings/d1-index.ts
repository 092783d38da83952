/**
 * Vectors in D1, searched by brute force: every vector of the model within
 * the filter is read (in pages of SCAN_PAGE rows) and compared with the
 * query in the Worker. Exact, needs no other service, and runs locally; its
 * cost grows with the corpus (bench/vector-scan.ts measures it), so it is
 * meant for corpora up to D1_SCAN_MAX_CHUNKS chunks. Beyond that, Vectorize.
 */
import type { D1Reader } from "../d1/sessions.ts";
import type { VectorFilter, VectorIndex, VectorMatch, VectorQuery } from "./vector-index.ts";

/**
 * The corpus size (chunks) up to which the D1 index is recommended:
 * bench/vector-scan.ts measured a query at 768 dimensions at 0.37 s over
 * 10,000 chunks and 1.6 s over 50,000 (BENCHMARKS.md), past the index's
 * 1.5 s deadline (hybrid.ts), so a larger corpus wants Vectorize.
 */
export const D1_SCAN_MAX_CHUNKS = 10_000;

/**
 * Rows per scan query: a 768-dimension vector is about 1 KB of base64, so a
 * page is about 1 MB, read and compared in about 40 ms (a tenth of the 0.37 s
 * that 10,000 took, BENCHMARKS.md): the scan checks its deadline that often.
 */
export const SCAN_PAGE = 1000;

/**
 * A vector as stored in `chunk_vectors.vector`: base64 of a float32 scale
 * (little-endian) followed by one signed byte per dimension, the component
 * divided by the scale (the largest magnitude / 127). Not float32 BLOBs:
 * D1 hands a BLOB to the Worker as a JSON array of byte values, and a
 * float32 vector is 4 KB of base64. Scanning 10,000 vectors of 768
 * dimensions took about 17 s as float32 BLOBs, 1.0 s as float32 base64 and
 * 0.4 s as these bytes, in one run (BENCHMARKS.md). Per-vector int8
 * quantisation moved a cosine similarity by 0.0002 there, far less than
 * the difference between neighbours that fusion cares about.
 *
 * @example decodeVector(encodeVector(new Float32Array([0.6, -0.8]))) // Float32Array [≈0.6, ≈-0.8]
 */
export function encodeVector(values: Float32Array): string {
  let largest = 0;
  for (const value of values) largest = Math.max(largest, Math.abs(value));
  const scale = largest > 0 ? largest / 127 : 1;
  const bytes = new Uint8Array(4 + values.length);
  new DataView(bytes.buffer).setFloat32(0, scale, true);
  for (let i = 0; i < values.length; i += 1) bytes[4 + i] = Math.round((values[i] as number) / scale) & 0xff;
  let binary = "";
  for (let i = 0; i < bytes.length; i += 1) binary += String.fromCharCode(bytes[i] as number);
  return btoa(binary);
}

/** A stored vector, quantised: its bytes and the scale that turns them back into components. */
interface StoredVector {
  scale: number;
  bytes: Int8Array;
}

/** A stored vector's scale and bytes; null when the value is not one encodeVector wrote. */
function readVector(stored: unknown): StoredVector | null {
  if (typeof stored !== "string" || stored.length < 8) return null;
  let binary: string;
  try {
    binary = atob(stored);
  } catch {
    return null;
  }
  if (binary.length < 5) return null;
  const raw = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) raw[i] = binary.charCodeAt(i);
  return { scale: new DataView(raw.buffer).getFloat32(0, true), bytes: new Int8Array(raw.buffer, 4) };
}

/** A stored vector back as floats (within its quantisation step); null when it is not one encodeVector wrote. */
export function decodeVector(stored: unknown): Float32Array | null {
  const vector = readVector(stored);
  if (!vector) return null;
  return Float32Array.from(vector.bytes, (byte) => byte * vector.scale);
}

/** Keeps the `size` best matches seen, best first. */
class TopMatches {
  readonly matches: VectorMatch[] = [];
  readonly size: number;

  constructor(size: number) {
    this.size = size;
  }

  offer(id: string, score: number): void {
    const worst = this.matches[this.matches.length - 1];
    if (this.matches.length >= this.size && worst && score <= worst.score) return;
    let at = this.matches.length;
    while (at > 0 && (this.matches[at - 1]?.score ?? 0) < score) at -= 1;
    this.matches.splice(at, 0, { id, score });
    if (this.matches.length > this.size) this.matches.pop();
  }
}

function dot(a: Int8Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) sum += (a[i] as number) * (b[i] as number);
  return sum;
}

/** Thrown when the corpus has outgrown the D1 scan: search falls back to lexical and logs this, naming the fix. */
export class VectorScanCeilingError extends Error {
  override readonly name = "VectorScanCeilingError";
}

/**
 * The SQL condition (over `documents d`) and values for the data sources and
 * versions a vector filter admits, its `?` numbered from `first`.
 */
function filterCondition(filter: VectorFilter | undefined, first: number): { sql: string; params: string[] } {
  const conditions: string[] = [];
  const params: string[] = [];
  const list = (values: readonly string[]) => values.map((value) => (params.push(value), `?${first + params.length - 1}`)).join(", ");
  if (filter?.dataSources) conditions.push(`d.data_source IN (${list(filter.dataSources)})`);
  if (filter?.excludedDataSources?.length) conditions.push(`d.data_source NOT IN (${list(filter.excludedDataSources)})`);
  if (filter?.versions) conditions.push(`d.version IN (${list(filter.versions)})`);
  return { sql: conditions.join(" AND "), params };
}

/**
 * The D1 vector index over `db` (a read session for queries, the database
 * itself for ingestion). Writing is done by the ledger (sync-vectors.ts),
 * which stores the vector in its row, so upsert and delete have nothing more
 * to do. A query checks its signal before each page of SCAN_PAGE rows, so it
 * stops reading within one page of its deadline, and refuses to read past
 * `maxChunks` vectors (D1_SCAN_MAX_CHUNKS): a corpus that large is past what
 * a scan reads in time, and wants Vectorize.
 */
export function d1VectorIndex(db: D1Reader, options: { maxChunks?: number } = {}): VectorIndex {
  const ceiling = options.maxChunks ?? D1_SCAN_MAX_CHUNKS;
  return {
    kind: "d1",
    storesInLedger: true,
    async upsert() {},
    async delete() {},
    async query(query: VectorQuery) {
      const top = new TopMatches(query.topK);
      const condition = filterCondition(query.filter, 4);
      let after = 0;
      let read = 0;
      for (;;) {
        // A turn of the event loop first: workerd runs a due timer (the deadline's) only between tasks, not between a D1 answer and its reader.
        if (query.signal) await new Promise((resolve) => setTimeout(resolve, 0));
        query.signal?.throwIfAborted();
        const sql = `SELECT v.rowid AS row, v.vector_id AS id, v.vector AS vector FROM chunk_vectors AS v
          ${condition.sql ? "JOIN documents AS d ON d.name = v.document_name" : ""}
          WHERE v.model = ?1 AND v.rowid > ?2 AND v.dimensions = ?3 AND v.vector IS NOT NULL ${condition.sql ? `AND ${condition.sql}` : ""}
          ORDER BY v.rowid LIMIT ${SCAN_PAGE}`;
        const { results } = await db
          .prepare(sql)
          .bind(query.model, after, query.vector.length, ...condition.params)
          .all<{ row: number; id: string; vector: unknown }>();
        read += results.length;
        if (read > ceiling) {
          throw new VectorScanCeilingError(
            `the D1 vector index holds more than ${ceiling} vectors of ${query.model} for this query, more than one scan reads within its deadline; ` +
              "set VECTOR_INDEX=vectorize (with a VECTORIZE binding) for a corpus this large",
          );
        }
        for (const row of results) {
          const stored = readVector(row.vector);
          if (stored && stored.bytes.length === query.vector.length) top.offer(row.id, stored.scale * dot(stored.bytes, query.vector));
        }
        const last = results[results.length - 1];
        if (!last || results.length < SCAN_PAGE) break;
        after = last.row;
      }
      return top.matches;
    },
  };
}
