/**
 * Vectors in Vectorize (the `VECTORIZE` binding): an approximate nearest
 * neighbour index that scales past what a D1 scan can read per query.
 * Create it with 768 dimensions and cosine distance, and a string metadata
 * index on `data_source` (corpus/docs/deploying.md has the commands).
 */
import type { ChunkVector, VectorFilter, VectorIndex, VectorQuery } from "./vector-index.ts";

/**
 * Vectorize's documented limits (developers.cloudflare.com/vectorize/platform/limits):
 * 1000 vectors per upsert from a Worker, topK at most 100 when neither values
 * nor metadata are returned (20 with them), ids of at most 64 bytes.
 */
const VECTORIZE_LIMITS = { upsertBatch: 1000, topK: 100, idBytes: 64 } as const;

/**
 * The VECTORIZE binding: `wrangler types` declares `[[vectorize]]` as the
 * beta `VectorizeIndex`, and a current index is served as `Vectorize`
 * (mutations answer a mutation id); the calls made here are the same on both.
 */
export type VectorizeBinding = Vectorize | VectorizeIndex;

/** The metadata each vector carries; `data_source` has a metadata index, so queries filter on it before ranking. */
interface ChunkMetadata {
  data_source: string;
  document: string;
  chunk_id: string;
  update_time: string;
  [key: string]: string;
}

/**
 * The part of a vector filter Vectorize can apply before it ranks: the data
 * sources (its metadata index is on `data_source`). Versions are not in the
 * metadata; search applies them, and everything else, exactly afterwards, so
 * this only ever narrows what Vectorize ranks, never what search returns.
 *
 * @example vectorizeFilter({ dataSources: ["dart.dev"] }) // { data_source: { $eq: "dart.dev" } }
 */
export function vectorizeFilter(filter: VectorFilter | undefined): VectorizeVectorMetadataFilter | undefined {
  const sources = filter?.dataSources;
  if (sources) return sources.length === 1 ? { data_source: { $eq: sources[0] as string } } : { data_source: { $in: [...sources] } };
  const excluded = filter?.excludedDataSources;
  return excluded && excluded.length > 0 ? { data_source: { $nin: [...excluded] } } : undefined;
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
      query.signal?.throwIfAborted();
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
