/**
 * Vectors in D1, searched by brute force: every vector of the model within
 * the filter is read (in pages of SCAN_PAGE rows) and compared with the
 * query in the Worker. Exact, needs no other service, and runs locally; its
 * cost grows with the corpus (bench/vector-scan.ts measures it), so it is
 * meant for corpora up to D1_SCAN_MAX_CHUNKS chunks. Beyond that, Vectorize.
 */
import type { D1Reader } from "../d1/sessions.ts";
import type { VectorIndex, VectorMatch, VectorQuery } from "./vector-index.ts";

/**
 * The corpus size (chunks) up to which the D1 index is recommended:
 * bench/vector-scan.ts measured a query at 768 dimensions over 10,000
 * chunks and 50,000 (BENCHMARKS.md); past this the scan costs more than the
 * rest of a search.
 */
export const D1_SCAN_MAX_CHUNKS = 10_000;

/** Rows per scan query: 768 float32s are 3 KB, so a page is about 3 MB of vectors. */
const SCAN_PAGE = 1000;

/** A float32 vector as a BLOB (little-endian, as every platform Workers run on). */
export function toBlob(values: Float32Array): Uint8Array {
  return new Uint8Array(values.buffer.slice(values.byteOffset, values.byteOffset + values.byteLength));
}

/** A BLOB column as D1 returns it (ArrayBuffer, or an array of bytes in some versions) back as floats. */
export function fromBlob(blob: unknown): Float32Array | null {
  if (blob instanceof ArrayBuffer) return new Float32Array(blob.slice(0));
  if (ArrayBuffer.isView(blob)) return new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength));
  if (Array.isArray(blob)) return new Float32Array(new Uint8Array(blob).buffer);
  return null;
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

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) sum += (a[i] as number) * (b[i] as number);
  return sum;
}

/**
 * The D1 vector index over `db` (a read session for queries, the database
 * itself for ingestion). Writing is done by the ledger (sync-vectors.ts),
 * which stores the vector in its row, so upsert and delete have nothing more to do.
 */
export function d1VectorIndex(db: D1Reader): VectorIndex {
  return {
    kind: "d1",
    storesInLedger: true,
    async upsert() {},
    async delete() {},
    async query(query: VectorQuery) {
      const top = new TopMatches(query.topK);
      const filter = query.filter;
      let after = 0;
      for (;;) {
        // The filter reads page fields (filter.ts compiles over `documents d`); its `?` follow ours.
        const sql = `SELECT v.rowid AS row, v.vector_id AS id, v.vector AS vector FROM chunk_vectors AS v
          ${filter ? "JOIN documents AS d ON d.name = v.document_name" : ""}
          WHERE v.model = ?1 AND v.rowid > ?2 AND v.dimensions = ?3 AND v.vector IS NOT NULL ${filter ? `AND (${numbered(filter.sql, 4)})` : ""}
          ORDER BY v.rowid LIMIT ${SCAN_PAGE}`;
        const { results } = await db
          .prepare(sql)
          .bind(query.model, after, query.vector.length, ...(filter?.params ?? []))
          .all<{ row: number; id: string; vector: unknown }>();
        for (const row of results) {
          const values = fromBlob(row.vector);
          if (values && values.length === query.vector.length) top.offer(row.id, dot(values, query.vector));
        }
        const last = results[results.length - 1];
        if (!last || results.length < SCAN_PAGE) break;
        after = last.row;
      }
      return top.matches;
    },
  };
}

/** The filter's plain `?` placeholders numbered from `first`, so they follow the statement's own numbered ones. */
export function numbered(sql: string, first: number): string {
  let next = first;
  // Filter values are bound, never spliced, so a `?` in the compiled SQL is always a placeholder.
  return sql.replace(/\?/g, () => `?${next++}`);
}
