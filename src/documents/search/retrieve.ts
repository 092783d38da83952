import { DEFAULT_CORPUS } from "../default-corpus.ts";
import type { CompiledFilter } from "./filter.ts";
import { camelCaseParts, matchTerms, queryIdentifiers, queryTerms, queryWords, stem } from "./query-text.ts";
import { namedSites, rankCandidates, weighTerms, type RankedCandidate, type WeightedTerm } from "./rank.ts";
import type { ChunkHit } from "../document.ts";
import { fetchCandidates, type CandidateQuery } from "./candidates.ts";
import type { RankingWeights } from "./ranking-weights.ts";
import type { D1Reader } from "../../d1/sessions.ts";
import type { SemanticSearch } from "../../embeddings/semantic-search.ts";
import { chunkKey, embedQuery, fuseRanked, vectorNeighbours } from "./hybrid.ts";
import { finalOrder, type RetrievedChunk } from "./final-order.ts";
import { hiddenParam, publicViewer, readAsViewer, withVisibility, type Viewer, type Visibility } from "../access/visibility.ts";

/** The chunks that best answer a query, best first, and the query's words as they were weighed. */
interface Retrieval {
  ranked: RetrievedChunk[];
  terms: WeightedTerm[];
  /** The data sources the query names ("dart", "go"). */
  namedSites: ReadonlySet<string>;
  /** What the viewer was shown of the corpus: the reads after retrieval note against it what they returned (noteTouched). */
  visibility: Visibility;
}

/**
 * Which pages a retrieval may see: the caller's filter (its text and its
 * compiled form) and the caller's visibility (visibility.ts), which leaves
 * the data sources hidden from the caller out of every statement that picks
 * chunks. Without a visibility nothing is left out (the benchmark's own
 * plan); retrieveChunks always passes the viewer's.
 */
interface RetrievalFilter {
  source?: string;
  compiled: CompiledFilter | null;
  visibility?: Visibility;
}

/** What a query asks of the index, worked out from its text alone. */
interface RetrievalPlan extends CandidateQuery {
  /** The query's single words (their stems are `stems`) and its identifiers, for weighing. */
  words: string[];
  identifiers: string[];
}

/**
 * The index query for free user text, or null when it has no searchable
 * term. Pure, so the benchmark plans exactly what search runs.
 */
export function planRetrieval(query: string, filter: RetrievalFilter): RetrievalPlan | null {
  const terms = matchTerms(query);
  if (terms.length === 0) return null;
  // A query of stopwords only ("how to", "C") is searched by them all, as queryTerms does; its words weigh them too.
  const topical = queryWords(query);
  const own = topical.length > 0 ? topical : queryTerms(query).flatMap((term) => term.split(/[_.-]/));
  const words = [...new Set([...own, ...camelCaseParts(query).flatMap((parts) => parts.split(" "))])];
  const unlessAlone = asksAboutAlmanac(words, filter.source) ? undefined : DEFAULT_CORPUS.baseUri;
  const hiddenSources = filter.visibility && filter.visibility.hidden.length > 0 ? hiddenParam(filter.visibility) : undefined;
  return {
    terms,
    stems: words.map(stem),
    filter: filter.visibility ? withVisibility(filter.compiled, filter.visibility) : filter.compiled,
    words,
    identifiers: queryIdentifiers(query),
    ...(unlessAlone ? { unlessAlone } : {}),
    ...(hiddenSources ? { hiddenSources } : {}),
  };
}

/** Who retrieves, and within which filter: its text and its compiled form; absent a viewer, the public sources (visibility.ts). */
interface RetrievalRequest {
  source?: string;
  compiled: CompiledFilter | null;
  viewer?: Viewer;
}

/**
 * Finds and ranks the chunks for free user text, in one pipeline: gather the
 * BM25 candidates from the FTS5 index and, with `semantic` (hybrid retrieval
 * on), the query's vector neighbours (hybrid.ts); rank them all once
 * (rank.ts) with `ranking`; fuse the lexical order with the vectors' once
 * (fusion.ts); spread the result over pages once and score its relevance
 * (final-order.ts). Search, answers, REST and the landing page all start
 * here, so an answer is always drawn from what search ranks first, and a
 * chunk's ranking score means the same with embeddings on or off. What the
 * viewer may see is read in the candidates' own round trip (readAsViewer).
 */
export async function retrieveChunks(
  db: D1Reader,
  query: string,
  request: RetrievalRequest,
  ranking: RankingWeights,
  semantic?: SemanticSearch,
): Promise<Retrieval> {
  // The query is embedded while the lexical candidates are fetched.
  const embedding = semantic ? embedQuery(semantic, query) : undefined;
  const { result, visibility } = await readAsViewer(db, request.viewer ?? publicViewer(), async (runner, visibility): Promise<Omit<Retrieval, "visibility">> => {
    const plan = planRetrieval(query, { ...request, visibility });
    if (!plan) return { ranked: [], terms: [], namedSites: new Set() };
    const { candidates, statistics } = await fetchCandidates(runner, plan, ranking);
    const neighbours = semantic && embedding ? await vectorNeighbours(db, semantic, embedding, plan) : null;
    const lexical = new Set(candidates.map(chunkKey));
    // Chunks only the vectors found are ranked with the rest (bm25 0): they get the same coverage measure, which answers gate on.
    const newcomers = new Map((neighbours ?? []).filter(({ candidate }) => !lexical.has(chunkKey(candidate))).map(({ candidate }) => [chunkKey(candidate), candidate]));
    const terms = weighTerms(plan.words, plan.identifiers, statistics);
    const sites = namedSites(plan.words, [...new Set(candidates.map((candidate) => candidate.document.dataSource))]);
    const ranked = rankCandidates([...candidates, ...newcomers.values()], terms, sites, ranking);
    const ordered = neighbours ? fuseRanked(ranked, lexical, neighbours) : ranked.map((candidate) => ({ candidate, score: candidate.score }));
    return { ranked: finalOrder(ordered, ranking.samePage), terms, namedSites: sites };
  });
  return { ...result, visibility };
}

/**
 * Almanac's own pages (the default corpus) answer questions about Almanac;
 * beside a user's documentation they would crowd its results (a question
 * about Dart's "search" or "quota" is not about Almanac's). So they take part
 * only while they are the only pages, or when the query names Almanac, or
 * the filter names their site.
 */
function asksAboutAlmanac(words: readonly string[], filter: string | undefined): boolean {
  return words.includes("almanac") || (filter ?? "").includes(DEFAULT_CORPUS.dataSource);
}

/** A ranked chunk as search results show it: the SPEC 2.1 fields, and its relevance score when retrieval gave it one (final-order.ts). */
export function toChunkHit(candidate: RankedCandidate & { relevance?: number }): ChunkHit {
  const hit = { parent: candidate.parent, id: candidate.id, content: candidate.content, document: candidate.document };
  return candidate.relevance === undefined ? hit : { ...hit, relevanceScore: candidate.relevance };
}
