/**
 * Hybrid retrieval (issue 22): the query's vector neighbours fused with the
 * lexical ranking by reciprocal rank fusion (fusion.ts). The query is
 * embedded once, while the lexical candidates are fetched; anything that
 * fails or is late (the embedder, the index) leaves the lexical ranking as
 * it is, with the reason in Server-Timing (`fallback`) and the log, never an
 * error to the caller.
 */
import type { ChunkRow } from "./candidates.ts";
import { seenByDefaultSql } from "../versions.ts";
import type { D1Reader } from "../../d1/sessions.ts";
import { EmbeddingError, withDeadline } from "../../embeddings/embedder.ts";
import type { SemanticSearch } from "../../embeddings/semantic-search.ts";
import type { VectorMatch } from "../../embeddings/vector-index.ts";
import { note, timed } from "../../observability/timings.ts";
import { D1_LIMITS } from "../../d1/limits.ts";
import { toSummary } from "../document.ts";
import type { Candidate, CandidateQuery } from "./candidates.ts";
import { fuseAtEqualDepth } from "./fusion.ts";
import type { RankedCandidate } from "./rank.ts";
import type { Ordered } from "./final-order.ts";

/**
 * How long a query waits for its embedding: a hosted embedder answers a
 * short text in 20–150 ms, so 800 ms is a stalled provider, not a slow one;
 * past it the lexical result goes out, and a person never waits a second
 * longer than search alone would take.
 */
const QUERY_EMBEDDING_DEADLINE_MS = 800;
/** How long the vector index may take: Vectorize answers in tens of ms; a D1 scan of D1_SCAN_MAX_CHUNKS takes less (BENCHMARKS.md). */
const VECTOR_QUERY_DEADLINE_MS = 1500;
/** Vector neighbours fused with the lexical candidates: deep enough to rescue a page BM25 missed, within Vectorize's topK of 100. */
const VECTOR_CANDIDATES = 50;

/** The query's embedding, or why there is none. */
type QueryEmbedding = { vector: Float32Array } | { failed: string };

/**
 * Starts embedding the query (timed as `embed`), never rejecting: the
 * lexical search runs meanwhile, and a failure only means lexical results.
 */
export function embedQuery(semantic: SemanticSearch, query: string): Promise<QueryEmbedding> {
  return timed("embed", () => withDeadline(QUERY_EMBEDDING_DEADLINE_MS, "the embedder", (signal) => semantic.embedder.embed([query], signal))).then(
    ([vector]) => (vector ? { vector } : { failed: "the embedder returned no vector" }),
    (error: unknown) => ({ failed: reason(error) }),
  );
}

/** A chunk the vector index found, with the id of its vector. */
interface Neighbour {
  candidate: Candidate;
  vectorId: string;
}

/**
 * The query's vector neighbours within the plan's filter, in the index's
 * order (best first), or null (and the fallback noted) when the embedding or
 * the index failed: retrieval then goes on lexical alone.
 */
export async function vectorNeighbours(db: D1Reader, semantic: SemanticSearch, embedding: Promise<QueryEmbedding>, plan: CandidateQuery): Promise<Neighbour[] | null> {
  const embedded = await embedding;
  if ("failed" in embedded) return fallBack(embedded.failed);
  try {
    const index = semantic.index(db);
    const matches = await timed("vector", () =>
      withDeadline(VECTOR_QUERY_DEADLINE_MS, `the ${index.kind} vector index`, (signal) =>
        index.query({ vector: embedded.vector, topK: VECTOR_CANDIDATES, model: semantic.embedder.model, filter: plan.filter?.constraints, signal }),
      ),
    );
    const found = await neighbourChunks(db, matches, semantic.embedder.model, plan);
    // The vector list in the index's order, filter and step-aside applied (neighbourChunks keeps only admitted chunks).
    const order = new Map(matches.map((match, rank) => [match.id, rank]));
    return found.sort((a, b) => (order.get(a.vectorId) ?? 0) - (order.get(b.vectorId) ?? 0));
  } catch (error) {
    return fallBack(reason(error));
  }
}

/** A chunk's key in both lists. */
export const chunkKey = (candidate: { parent: string; id: string }) => `${candidate.parent}#${candidate.id}`;

/**
 * The ranked chunks (rank.ts, lexical candidates and vector neighbours
 * ranked together) fused by reciprocal rank fusion: the lexical candidates
 * in ranking order with the neighbours in the index's order (fusion.ts).
 */
export function fuseRanked(ranked: readonly RankedCandidate[], lexical: ReadonlySet<string>, neighbours: readonly Neighbour[]): Ordered[] {
  const byKey = new Map(ranked.map((candidate) => [chunkKey(candidate), candidate]));
  const lexicalList = ranked.filter((candidate) => lexical.has(chunkKey(candidate)));
  const vectorList = [...new Set(neighbours.map(({ candidate }) => chunkKey(candidate)))].flatMap((key) => byKey.get(key) ?? []);
  return fuseAtEqualDepth(lexicalList, vectorList, chunkKey, VECTOR_CANDIDATES).map(({ item, score }) => ({ candidate: item, score }));
}

function fallBack(why: string): null {
  note("fallback", `lexical: ${why}`);
  console.warn(`search: hybrid retrieval fell back to lexical: ${why}`);
  return null;
}

function reason(error: unknown): string {
  if (error instanceof EmbeddingError) return error.message;
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

interface NeighbourRow extends ChunkRow {
  vector_id: string;
  heading: string;
  position: number;
  terms: string;
}

/**
 * The chunks of the matched vectors that the filter admits (applied here
 * exactly, whatever the index could apply) and whose page does not step
 * aside (retrieve.ts asksAboutAlmanac), for the current model only.
 */
async function neighbourChunks(db: D1Reader, matches: readonly VectorMatch[], model: string, plan: CandidateQuery): Promise<Neighbour[]> {
  const filterParams = plan.filter?.params ?? [];
  const aloneParams = plan.unlessAlone ? [plan.unlessAlone, plan.unlessAlone, ...(plan.hiddenSources ? [plan.hiddenSources] : [])] : [];
  const room = Math.max(1, D1_LIMITS.boundParameters - 1 - filterParams.length - aloneParams.length);
  const statements: D1PreparedStatement[] = [];
  for (let start = 0; start < matches.length; start += room) {
    const ids = matches.slice(start, start + room).map((match) => match.id);
    const next = ids.length + 2;
    const filterSql = plan.filter ? `AND (${numbered(plan.filter.sql, next)})` : "";
    const aloneAt = next + filterParams.length;
    // Sources hidden from the caller are not "other pages" (candidates.ts filteredCandidates).
    const hiddenSql = plan.hiddenSources ? `AND other.data_source NOT IN (SELECT value FROM json_each(?${aloneAt + 2}))` : "";
    const aloneSql = plan.unlessAlone ? `AND (d.base_uri != ?${aloneAt} OR NOT EXISTS (SELECT 1 FROM documents AS other WHERE other.base_uri != ?${aloneAt + 1} ${hiddenSql}))` : "";
    // As lexical search: without a version in the filter, each data source's current version only.
    const versionSql = plan.filter?.namesVersion ? "" : `AND ${seenByDefaultSql("d")}`;
    statements.push(
      db
        .prepare(
          `SELECT v.vector_id, c.document_name AS parent, c.chunk_id AS id, c.content, c.heading, c.position, c.terms,
                  d.uri, d.title, d.description, d.data_source, d.update_time, d.version
           FROM chunk_vectors AS v
           JOIN chunks AS c ON c.document_name = v.document_name AND c.chunk_id = v.chunk_id
           JOIN documents AS d ON d.name = c.document_name
           WHERE v.vector_id IN (${ids.map((_, i) => `?${i + 1}`).join(", ")}) AND v.model = ?${ids.length + 1} ${filterSql} ${versionSql} ${aloneSql}`,
        )
        .bind(...ids, model, ...filterParams, ...aloneParams),
    );
  }
  if (statements.length === 0) return [];
  const results = await timed("d1", () => db.batch<NeighbourRow>(statements));
  return results.flatMap((result) =>
    result.results.map((row) => ({
      vectorId: row.vector_id,
      candidate: {
        parent: row.parent,
        id: row.id,
        content: row.content,
        heading: row.heading,
        position: row.position,
        terms: row.terms,
        bm25: 0,
        document: toSummary({ ...row, name: row.parent }),
      },
    })),
  );
}

/** The filter's plain `?` placeholders numbered from `first`, so they follow the statement's own numbered ones. */
function numbered(sql: string, first: number): string {
  let next = first;
  // Filter values are bound, never spliced, so a `?` in the compiled SQL is always a placeholder.
  return sql.replace(/\?/g, () => `?${next++}`);
}
