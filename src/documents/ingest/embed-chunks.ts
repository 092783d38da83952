/**
 * The embedding step of an ingestion (hybrid retrieval on): after the pages
 * are written, the chunks whose text or model changed are embedded and
 * stored, and the vectors of chunks no longer there are deleted. The ledger
 * (`chunk_vectors`, migration 0008) says what is embedded with which model,
 * so an unchanged re-ingest sends nothing to the embedder.
 */
import { planBatches, utf8Bytes, type StatementGroup } from "../../d1/batches.ts";
import { D1_LIMITS } from "../../d1/limits.ts";
import { sha256Hex } from "../../hash.ts";
import { encodeVector } from "../../embeddings/d1-index.ts";
import { embedInBatches, embeddedText } from "../../embeddings/embedder.ts";
import type { SemanticSearch } from "../../embeddings/semantic-search.ts";
import { vectorIdOf } from "../../embeddings/vector-ids.ts";
import type { ChunkVector } from "../../embeddings/vector-index.ts";
import type { PreparedDocument } from "./prepare-pages.ts";

/** What the embedding step did. */
export interface EmbeddingReport {
  /** The embedder and model the vectors are of. */
  model: string;
  /** Chunks sent to the embedder (new, changed, or embedded with another model before). */
  embedded: number;
  /** Vectors deleted because their chunk is gone. */
  removed: number;
}

interface LedgerRow {
  vector_id: string;
  document_name: string;
  text_hash: string;
  model: string;
}

/** A chunk as the step sees it: its ids, the text it is embedded by, and that text's hash. */
interface WantedChunk {
  id: string;
  document: string;
  chunkId: string;
  text: string;
  textHash: string;
}

/**
 * Brings the vectors of `baseUri`'s pages in step with its chunks: embeds
 * the chunks of `documents` that have no vector of this model and text, and
 * deletes the vectors of chunks those pages no longer have and of pages no
 * longer stored. Pages stored under `baseUri` but not in `documents` (an
 * ingestion without --prune of part of a site) keep their vectors.
 */
export async function embedChunks(
  db: D1Database,
  semantic: SemanticSearch,
  baseUri: string,
  documents: readonly PreparedDocument[],
  onProgress?: (embedded: number, total: number) => void,
): Promise<EmbeddingReport> {
  const { embedder } = semantic;
  const index = semantic.index(db);
  const [{ results: ledger }, { results: pages }] = await db.batch<Record<string, unknown>>([
    db.prepare("SELECT vector_id, document_name, text_hash, model FROM chunk_vectors WHERE base_uri = ?1").bind(baseUri),
    db.prepare("SELECT name, data_source, update_time FROM documents WHERE base_uri = ?1").bind(baseUri),
  ]) as [D1Result<LedgerRow>, D1Result<{ name: string; data_source: string; update_time: string }>];
  const stored = new Map(ledger.map((row) => [row.vector_id, row]));
  const page = new Map(pages.map((row) => [row.name, row]));

  const wanted: WantedChunk[] = [];
  for (const doc of documents) {
    for (const chunk of doc.chunks) {
      const text = embeddedText(doc.title, chunk.content);
      wanted.push({ id: await vectorIdOf(doc.name, chunk.id), document: doc.name, chunkId: chunk.id, text, textHash: await sha256Hex(`${embedder.model}\n${text}`) });
    }
  }
  const wantedIds = new Set(wanted.map((chunk) => chunk.id));
  const inRun = new Set(documents.map((doc) => doc.name));
  const stale = ledger.filter((row) => !page.has(row.document_name) || (inRun.has(row.document_name) && !wantedIds.has(row.vector_id))).map((row) => row.vector_id);
  const missing = wanted.filter((chunk) => {
    const row = stored.get(chunk.id);
    return !row || row.text_hash !== chunk.textHash || row.model !== embedder.model;
  });

  let embedded = 0;
  const embedding = embedInBatches(
    embedder,
    missing.map((chunk) => chunk.text),
    async (start, vectors) => {
      const batch = missing.slice(start, start + vectors.length).map((chunk, i): ChunkVector & { textHash: string } => {
        const info = page.get(chunk.document);
        return {
          id: chunk.id,
          document: chunk.document,
          chunkId: chunk.chunkId,
          dataSource: info?.data_source ?? "",
          updateTime: info?.update_time ?? "",
          values: vectors[i] as Float32Array,
          textHash: chunk.textHash,
        };
      });
      // The index first, then the ledger: a run stopped between the two embeds those chunks again, never forgets one.
      await index.upsert(batch);
      await writeLedger(db, baseUri, embedder.model, batch, index.storesInLedger);
      embedded += batch.length;
      onProgress?.(embedded, missing.length);
    },
  );
  await embedding.catch((error: unknown) => {
    // The pages are written and searchable; a chunk without a vector is found by its words only until the next run embeds it.
    throw new Error(
      `the pages are written, but embedding stopped after ${embedded} of ${missing.length} chunks (${error instanceof Error ? error.message : String(error)}); run the ingestion again to embed the rest`,
    );
  });
  if (stale.length > 0) {
    await index.delete(stale);
    await deleteLedgerRows(db, stale);
  }
  return { model: embedder.model, embedded, removed: stale.length };
}

/** Ledger rows of one batch of vectors, written in D1 batches within its limits. */
async function writeLedger(db: D1Database, baseUri: string, model: string, vectors: readonly (ChunkVector & { textHash: string })[], withVectors: boolean): Promise<void> {
  const groups: StatementGroup<D1PreparedStatement>[] = vectors.map((vector) => ({
    statements: [
      db
        .prepare(
          `INSERT INTO chunk_vectors (vector_id, base_uri, document_name, chunk_id, text_hash, model, dimensions, vector)
           VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
           ON CONFLICT (vector_id) DO UPDATE SET base_uri = excluded.base_uri, document_name = excluded.document_name,
             chunk_id = excluded.chunk_id, text_hash = excluded.text_hash, model = excluded.model,
             dimensions = excluded.dimensions, vector = excluded.vector`,
        )
        .bind(vector.id, baseUri, vector.document, vector.chunkId, vector.textHash, model, vector.values.length, withVectors ? encodeVector(vector.values) : null),
    ],
    bytes: utf8Bytes(vector.id + baseUri + vector.document + vector.chunkId + vector.textHash + model) + (withVectors ? vector.values.byteLength : 0),
  }));
  for (const batch of planBatches(groups)) await db.batch(batch);
}

/** Ids per DELETE: the parameter limit. */
const IDS_PER_DELETE = D1_LIMITS.boundParameters;

async function deleteLedgerRows(db: D1Database, ids: readonly string[]): Promise<void> {
  const statements: D1PreparedStatement[] = [];
  for (let i = 0; i < ids.length; i += IDS_PER_DELETE) {
    const batch = ids.slice(i, i + IDS_PER_DELETE);
    statements.push(db.prepare(`DELETE FROM chunk_vectors WHERE vector_id IN (${batch.map((_, j) => `?${j + 1}`).join(", ")})`).bind(...batch));
  }
  for (const batch of planBatches(statements.map((statement) => ({ statements: [statement], bytes: 0 })))) await db.batch(batch);
}
