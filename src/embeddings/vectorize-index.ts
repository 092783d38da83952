/**
 * Vectors in Vectorize (the `VECTORIZE` binding): an approximate nearest
 * neighbour index that scales past what a D1 scan can read per query.
 * Create it with 768 dimensions and cosine distance, and a string metadata
 * index on `data_source` (corpus/docs/deploying.md has the commands).
 */
import type { CompiledFilter } from "../documents/search/filter.ts";
import { splitVisibility } from "../documents/visibility.ts";
import type { ChunkVector, VectorIndex, VectorQuery } from "./vector-index.ts";

/**
 * Vectorize's documented limits (developers.cloudflare.com/vectorize/platform/limits):
 * 1000 vectors per upsert from a Worker, topK at most 100 when neither values
 * nor metadata are returned (20 with them), ids of at most 64 bytes.
 */
export const VECTORIZE_LIMITS = { upsertBatch: 1000, topK: 100, idBytes: 64 } as const;

/**
 * The VECTORIZE binding: `wrangler types` declares `[[vectorize]]` as the
 * beta `VectorizeIndex`, and a current index is served as `Vectorize`
 * (mutations answer a mutation id); the calls made here are the same on both.
 */
export type VectorizeBinding = Vectorize | VectorizeIndex;

/** The metadata each vector carries; `data_source` has a metadata index, so queries filter on it before ranking. */
export interface ChunkMetadata {
  data_source: string;
  document: string;
  chunk_id: string;
  update_time: string;
  [key: string]: string;
}

/**
 * The part of a compiled filter Vectorize can apply before it ranks: a
 * conjunction that pins `data_source` (= or !=). Any other filter is left
 * to D1, which applies every filter exactly to the matches afterwards, so
 * this only ever narrows what Vectorize ranks, never what search returns.
 *
 * @example vectorizeFilter({ sql: "(d.data_source = ?)", params: ["dart.dev"] }) // { data_source: { $eq: "dart.dev" } }
 */
export function vectorizeFilter(compiled: CompiledFilter | null): VectorizeVectorMetadataFilter | undefined {
  // Sources hidden from the caller (visibility.ts) are left out before ranking too, so they take no neighbour's place.
  const { filter, hidden } = splitVisibility(compiled);
  const own = ownFilter(filter);
  if (hidden.length === 0) return own;
  if (own === undefined) return { data_source: { $nin: hidden } };
  const pinned = own["data_source"] as { $eq?: string; $nin?: string[] };
  return pinned.$eq !== undefined ? own : { data_source: { $nin: [...(pinned.$nin ?? []), ...hidden] } };
}

/** The caller's own filter as Vectorize applies it, when it can. */
function ownFilter(filter: CompiledFilter | null): VectorizeVectorMetadataFilter | undefined {
  if (!filter) return undefined;
  const restriction = /^\(d\.data_source (=|!=) \?\)$/;
  const parts = filter.sql.startsWith("((") && filter.sql.endsWith("))") ? filter.sql.slice(1, -1).split(" AND ") : [filter.sql];
  if (parts.length !== filter.params.length) return undefined;
  const equal: string[] = [];
  const unequal: string[] = [];
  for (const [index, part] of parts.entries()) {
    const match = restriction.exec(part);
    const value = filter.params[index];
    if (!match || typeof value !== "string") return undefined;
    (match[1] === "=" ? equal : unequal).push(value);
  }
  if (equal.length > 1) return undefined;
  if (equal[0] !== undefined) return { data_source: { $eq: equal[0] } };
  return { data_source: { $nin: unequal } };
}

/**
 * The Vectorize index on `index`. Ids are the ledger's (vector-ids.ts); the
 * model is not in the metadata because one index holds one model's vectors
 * (its dimensions are fixed at creation): a change of model means a new index.
 */
export function vectorizeIndex(index: VectorizeBinding): VectorIndex {
  return {
    kind: "vectorize",
    storesInLedger: false,
    async upsert(vectors: readonly ChunkVector[]) {
      for (let start = 0; start < vectors.length; start += VECTORIZE_LIMITS.upsertBatch) {
        const batch = vectors.slice(start, start + VECTORIZE_LIMITS.upsertBatch).map((vector) => ({
          id: vector.id,
          values: vector.values,
          metadata: { data_source: vector.dataSource, document: vector.document, chunk_id: vector.chunkId, update_time: vector.updateTime } satisfies ChunkMetadata,
        }));
        await index.upsert(batch);
      }
    },
    async delete(ids: readonly string[]) {
      for (let start = 0; start < ids.length; start += VECTORIZE_LIMITS.upsertBatch) await index.deleteByIds(ids.slice(start, start + VECTORIZE_LIMITS.upsertBatch));
    },
    async query(query: VectorQuery) {
      const filter = vectorizeFilter(query.filter);
      const { matches } = await index.query(query.vector, {
        topK: Math.min(query.topK, VECTORIZE_LIMITS.topK),
        returnValues: false,
        returnMetadata: "none",
        ...(filter ? { filter } : {}),
      });
      return matches.map((match) => ({ id: match.id, score: match.score }));
    },
  };
}
