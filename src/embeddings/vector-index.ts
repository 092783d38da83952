/**
 * The vector index port: where chunk vectors are kept and searched.
 * Adapters: a D1 table scanned in the Worker (d1-index.ts), for corpora small
 * enough and for every local run, and Vectorize (vectorize-index.ts). Both
 * keep their bookkeeping in the `chunk_vectors` table (migration 0008), so
 * ingestion knows what is embedded whichever one holds the vectors.
 */

/** One chunk's vector and what filters need of it. */
export interface ChunkVector {
  /** vectorIdOf(document, chunkId). */
  id: string;
  document: string;
  chunkId: string;
  dataSource: string;
  updateTime: string;
  /** Unit length (embedder.ts normalise). */
  values: Float32Array;
}

/** A stored vector close to the query, with its cosine similarity. */
export interface VectorMatch {
  id: string;
  score: number;
}

/**
 * Which pages' vectors a query may return, as far as an index can tell:
 * data sources and versions (search compiles them from its filter, filter.ts
 * PageConstraints). Search applies its whole filter to the matches
 * afterwards, so an index may apply this in part, or not at all.
 */
export interface VectorFilter {
  /** Only pages of these data sources. */
  dataSources?: readonly string[];
  /** No page of these data sources. */
  excludedDataSources?: readonly string[];
  /** Only pages of these version labels ('' for unversioned pages). */
  versions?: readonly string[];
}

/** What a query asks: the nearest `topK` of `model`'s vectors among the pages `filter` admits. */
export interface VectorQuery {
  vector: Float32Array;
  topK: number;
  model: string;
  filter?: VectorFilter;
  /** Fires at the query's deadline: an index that is still reading stops. */
  signal?: AbortSignal;
}

/** Where chunk vectors live. */
export interface VectorIndex {
  /** "d1" or "vectorize", for logs. */
  readonly kind: string;
  /** Whether `chunk_vectors.vector` holds the vectors (D1) or they live elsewhere (NULL there). */
  readonly storesInLedger: boolean;
  /** Adds or replaces vectors (same id: replaced). */
  upsert(vectors: readonly ChunkVector[]): Promise<void>;
  /** Removes vectors by id; unknown ids are ignored. */
  delete(ids: readonly string[]): Promise<void>;
  /**
   * The nearest vectors, best first. A filter may be applied only in part
   * here: search applies its own exactly afterwards. Rejects once `signal`
   * fires, having stopped reading.
   */
  query(query: VectorQuery): Promise<VectorMatch[]>;
}
