import { AlmanacError } from "../../errors.ts";
import { sha256Hex } from "../../hash.ts";
import { cutAtLine } from "../../markdown/page.ts";
import { compileFilter } from "./filter.ts";
import { retrieveChunks, toChunkHit } from "./retrieve.ts";
import type { ChunkHit } from "../document.ts";
import { RANKED_CANDIDATES } from "./candidates.ts";
import { DEFAULT_RANKING, type RankingWeights } from "./ranking-weights.ts";
import type { D1Reader } from "../../d1/sessions.ts";
import type { SemanticSearch } from "../../embeddings/semantic-search.ts";
import { noteTouched, publicViewer, type Viewer } from "../access/visibility.ts";

/** A search request after argument validation (SPEC 2.1). */
interface SearchRequest {
  query: string;
  pageSize?: number;
  pageToken?: string;
  filter?: string;
  /**
   * At most this many characters of chunk text per page (MCP's result
   * budget): a page that would pass it ends early and its nextPageToken
   * continues right after the last chunk shown. Absent: pageSize alone decides.
   */
  budgetChars?: number;
  /** Who searches (visibility.ts): results come only from the data sources it sees; absent, the public ones. */
  viewer?: Viewer;
  /**
   * Results whose relevance score (final-order.ts) is below this, in [0, 1],
   * are left out; scores never rise down the list, so it cuts the tail.
   */
  minScore?: number;
}

/** One page of search results. */
export interface SearchResult {
  results: ChunkHit[];
  nextPageToken?: string;
}

/** Page size when the caller gives none, as Google's server uses. */
export const DEFAULT_PAGE_SIZE = 5;
export const MAX_PAGE_SIZE = 20;
/** Paging stops here: only this many candidates are ranked, and results this deep are noise. */
const MAX_OFFSET = RANKED_CANDIDATES;

/** Chunks relevant to the query, best first (ranked with `ranking`, fused with vector neighbours when `semantic` is given), one page at a time. */
export async function searchDocuments(db: D1Reader, request: SearchRequest, ranking: RankingWeights = DEFAULT_RANKING, semantic?: SemanticSearch): Promise<SearchResult> {
  const pageSize = request.pageSize ?? DEFAULT_PAGE_SIZE;
  const filter = compileFilter(request.filter);
  const offset = request.pageToken ? decodePageToken(request.pageToken, await pageTokenKey(request)) : 0;
  const viewer = request.viewer ?? publicViewer();
  const retrieved = await retrieveChunks(db, request.query, { source: request.filter, compiled: filter, viewer }, ranking, semantic);
  const ranked = request.minScore ? retrieved.ranked.filter((chunk) => chunk.relevance >= (request.minScore as number)) : retrieved.ranked;
  const results = withinBudget(ranked.slice(offset, offset + pageSize).map(toChunkHit), request.budgetChars);
  noteTouched(viewer, retrieved.visibility, results.map((hit) => ({ dataSource: hit.document.dataSource, name: hit.parent })));
  const nextOffset = offset + results.length;
  if (ranked.length <= nextOffset || nextOffset >= MAX_OFFSET) return { results };
  return { results, nextPageToken: encodePageToken(nextOffset, await pageTokenKey(request)) };
}

/** Room each hit takes in the text beside its chunk and the names it repeats: numbering, labels, update time. */
const HIT_OVERHEAD_CHARS = 120;

/** The text a hit takes besides its content: its title, uri, section and parent lines. */
function hitOverhead(hit: ChunkHit): number {
  return HIT_OVERHEAD_CHARS + hit.document.title.length + hit.document.uri.length + hit.id.length + hit.parent.length;
}

/** The leading hits whose text fits `budget` (always at least one, so paging moves on). */
function withinBudget(hits: ChunkHit[], budget: number | undefined): ChunkHit[] {
  if (budget === undefined) return hits;
  let used = 0;
  const kept: ChunkHit[] = [];
  for (const hit of hits) {
    const overhead = hitOverhead(hit);
    used += hit.content.length + overhead;
    if (kept.length > 0 && used > budget) break;
    // A chunk is one section or less, but a section holding one huge code block or table is not split at ingest.
    const note = `\n\n[… the section goes on: get_documents "${hit.parent}#${hit.id}"]`;
    const room = budget - overhead - note.length;
    kept.push(hit.content.length <= room ? hit : { ...hit, content: `${cutAtLine(hit.content, room)}${note}` });
  }
  return kept;
}

/**
 * Page tokens carry the offset and a fingerprint of the query and filter (and
 * minScore, when given), so a token replayed with another query is refused
 * instead of paging nonsense.
 */
async function pageTokenKey({ query, filter, minScore }: SearchRequest): Promise<string> {
  return (await sha256Hex(JSON.stringify(minScore ? [query, filter ?? "", minScore] : [query, filter ?? ""]))).slice(0, 12);
}

function encodePageToken(offset: number, key: string): string {
  return btoa(`${offset}.${key}`).replace(/=+$/, "");
}

function decodePageToken(token: string, key: string): number {
  let decoded = "";
  try {
    decoded = atob(token);
  } catch {
    // Falls through to the error below.
  }
  const match = /^(\d{1,4})\.([0-9a-f]{12})$/.exec(decoded);
  if (!match) {
    throw new AlmanacError("INVALID_ARGUMENT", "pageToken is not a token this server issued; pass the nextPageToken of a previous result, or omit it");
  }
  if (match[2] !== key) {
    throw new AlmanacError("INVALID_ARGUMENT", "pageToken belongs to a different query or filter; repeat the same query and filter to page, or omit pageToken");
  }
  return Number(match[1]);
}
