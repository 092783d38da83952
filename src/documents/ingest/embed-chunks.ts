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
  const [{ results: ledger }, { results: pages }] = await db.batch<Record<string, unknown>>([
    db.prepare("SELECT vector_id, document_name, text_hash, model FROM chunk_vectors WHERE base_uri = ?1").bind(baseUri),
    db.prepare("SELECT name, data_source, update_time FROM documents WHERE base_uri = ?1").bind(baseUri),
  ]) as [D1Result<LedgerRow>, D1Result<PageRow>];
  const page = new Map(pages.map((row) => [row.name, row]));
  const wanted = await wantedChunks(semantic.embedder.model, documents.flatMap((doc) => doc.chunks.map((chunk) => ({ document: doc.name, title: doc.title, chunkId: chunk.id, content: chunk.content }))));
  const wantedIds = new Set(wanted.map((chunk) => chunk.id));
  const inRun = new Set(documents.map((doc) => doc.name));
  const stale = ledger.filter((row) => !page.has(row.document_name) || (inRun.has(row.document_name) && !wantedIds.has(row.vector_id))).map((row) => row.vector_id);
  const embedded = await embedMissing(db, semantic, baseUri, missingFrom(wanted, ledger, semantic.embedder.model), page, "run the ingestion again to embed the rest", onProgress);
  await deleteVectors(db, semantic, stale);
  return { model: semantic.embedder.model, embedded, removed: stale.length };
}

/**
 * The bounds of one piece of `embedStoredPages`: the pages it reads (an
 * unchanged site costs a read of this many pages' chunks per piece), and the
 * chunks it embeds, after which it takes no further page. A chunk's vector
 * is one ledger statement and an embedder call carries up to 100 chunks, so
 * a piece stays near 210 subrequests, inside Workers Paid's 1,000 per
 * invocation (refresh needs Workers Paid; refresh-workflow.ts).
 */
const EMBEDDING_PIECE = Object.freeze({ pages: 50, chunks: 200 });

/** One piece of `embedStoredPages`: what it did, and the page to carry on after (null: every page is done). */
export interface EmbeddingPiece extends EmbeddingReport {
  next: string | null;
}

/**
 * One piece of bringing the vectors of the pages *stored* under `baseUri`
 * in step with their chunks, for the readers that publish pages they no
 * longer hold (a refresh's crawl in Workflow steps, a site ingestion): the
 * pages after `after`, by name, are read back from D1; their chunks without
 * a vector of this model and text are embedded, the vectors of chunks they
 * no longer have are deleted. Once past the last page, the vectors of pages
 * no longer stored are deleted too. Safe to repeat: a retried piece finds
 * its chunks embedded.
 */
export async function embedStoredPages(
  db: D1Database,
  semantic: SemanticSearch,
  baseUri: string,
  after: string | null,
  bounds: { pages: number; chunks: number } = EMBEDDING_PIECE,
): Promise<EmbeddingPiece> {
  const model = semantic.embedder.model;
  const { results: docs } = await db
    .prepare("SELECT name, title, data_source, update_time FROM documents WHERE base_uri = ?1 AND name > ?2 ORDER BY name LIMIT ?3")
    .bind(baseUri, after ?? "", bounds.pages)
    .all<PageRow & { title: string }>();
  let embedded = 0;
  let removed = 0;
  let taken = 0;
  if (docs.length > 0) {
    const names = docs.map((doc) => doc.name);
    const list = names.map((_, i) => `?${i + 1}`).join(", ");
    const [{ results: chunks }, { results: ledger }] = await db.batch<Record<string, unknown>>([
      db.prepare(`SELECT document_name, chunk_id, content FROM chunks WHERE document_name IN (${list}) ORDER BY document_name, position`).bind(...names),
      db.prepare(`SELECT vector_id, document_name, text_hash, model FROM chunk_vectors WHERE document_name IN (${list})`).bind(...names),
    ]) as [D1Result<{ document_name: string; chunk_id: string; content: string }>, D1Result<LedgerRow>];
    const page = new Map(docs.map((doc) => [doc.name, doc]));
    const wanted = await wantedChunks(model, chunks.map((chunk) => ({ document: chunk.document_name, title: page.get(chunk.document_name)?.title ?? "", chunkId: chunk.chunk_id, content: chunk.content })));
    const missing = missingFrom(wanted, ledger, model);
    // Whole pages, in name order, until the chunks to embed reach the bound (always at least one page).
    let embedding = 0;
    for (const doc of docs) {
      const own = missing.filter((chunk) => chunk.document === doc.name).length;
      if (taken > 0 && embedding + own > bounds.chunks) break;
      embedding += own;
      taken += 1;
    }
    const done = new Set(names.slice(0, taken));
    const wantedIds = new Set(wanted.map((chunk) => chunk.id));
    const stale = ledger.filter((row) => done.has(row.document_name) && !wantedIds.has(row.vector_id)).map((row) => row.vector_id);
    embedded = await embedMissing(db, semantic, baseUri, missing.filter((chunk) => done.has(chunk.document)), page, "the next refresh or ingestion embeds the rest");
    await deleteVectors(db, semantic, stale);
    removed += stale.length;
  }
  const last = docs[taken - 1]?.name ?? after ?? "";
  if (taken < docs.length || docs.length === bounds.pages) return { model, embedded, removed, next: last };
  // Past the last page: the vectors of pages no longer stored, a bounded number per piece (a whole site removed has thousands).
  const { results: gone } = await db
    .prepare("SELECT vector_id FROM chunk_vectors WHERE base_uri = ?1 AND document_name NOT IN (SELECT name FROM documents WHERE base_uri = ?1) LIMIT ?2")
    .bind(baseUri, GONE_PER_PIECE)
    .all<{ vector_id: string }>();
  await deleteVectors(db, semantic, gone.map((row) => row.vector_id));
  return { model, embedded, removed: removed + gone.length, next: gone.length === GONE_PER_PIECE ? last : null };
}

/** Vectors of pages no longer stored that one piece deletes. */
const GONE_PER_PIECE = 1000;

/** Every piece of `embedStoredPages`, one after another (the CLI's readers: no step limits to keep). */
export async function embedAllStoredPages(db: D1Database, semantic: SemanticSearch, baseUri: string): Promise<EmbeddingReport> {
  const total: EmbeddingReport = { model: semantic.embedder.model, embedded: 0, removed: 0 };
  let after: string | null = null;
  do {
    const piece = await embedStoredPages(db, semantic, baseUri, after);
    total.embedded += piece.embedded;
    total.removed += piece.removed;
    after = piece.next;
  } while (after !== null);
  return total;
}

/** A stored page as the vectors' metadata needs it (a type, not an interface, so a D1 row converts to it). */
type PageRow = {
  name: string;
  data_source: string;
  update_time: string;
};

/** The chunks as the ledger knows them: vector id, embedded text and its hash under `model`. */
async function wantedChunks(model: string, chunks: readonly { document: string; title: string; chunkId: string; content: string }[]): Promise<WantedChunk[]> {
  const wanted: WantedChunk[] = [];
  for (const chunk of chunks) {
    const text = embeddedText(chunk.title, chunk.content);
    wanted.push({ id: await vectorIdOf(chunk.document, chunk.chunkId), document: chunk.document, chunkId: chunk.chunkId, text, textHash: await sha256Hex(`${model}\n${text}`) });
  }
  return wanted;
}

/** The wanted chunks with no vector of this model and text. */
function missingFrom(wanted: readonly WantedChunk[], ledger: readonly LedgerRow[], model: string): WantedChunk[] {
  const stored = new Map(ledger.map((row) => [row.vector_id, row]));
  return wanted.filter((chunk) => {
    const row = stored.get(chunk.id);
    return !row || row.text_hash !== chunk.textHash || row.model !== model;
  });
}

/** Embeds `missing` in the embedder's batches, each batch stored in the index and then the ledger; returns how many. */
async function embedMissing(
  db: D1Database,
  semantic: SemanticSearch,
  baseUri: string,
  missing: readonly WantedChunk[],
  page: ReadonlyMap<string, PageRow>,
  whatNext: string,
  onProgress?: (embedded: number, total: number) => void,
): Promise<number> {
  const { embedder } = semantic;
  const index = semantic.index(db);
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
      `the pages are written, but embedding stopped after ${embedded} of ${missing.length} chunks (${error instanceof Error ? error.message : String(error)}); ${whatNext}`,
    );
  });
  return embedded;
}

/** Deletes vectors from the index, then their ledger rows. */
async function deleteVectors(db: D1Database, semantic: SemanticSearch, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await semantic.index(db).delete(ids);
  await deleteLedgerRows(db, ids);
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
