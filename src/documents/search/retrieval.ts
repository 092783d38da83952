/**
 * One request's retrieval, built in one place for every door that searches
 * or answers (MCP tools, REST, the landing page): where its reads start, who
 * reads (the viewer, so hidden sources stay out and restricted ones are
 * noted for the audit log), the weights, and hybrid retrieval when it is on.
 */
import { ReadConsistency } from "../../d1/sessions.ts";
import type { EmbeddingsVars } from "../../embeddings/config.ts";
import { semanticSearchFor } from "../../embeddings/semantic-search.ts";
import { answerWithSources, DEFAULT_ANSWER_WEIGHTS, type AnswerWeights, type SourcedAnswer } from "../answer/answer-query.ts";
import { findContentLengths } from "../read/stored-documents.ts";
import { searchDocuments, type SearchResult } from "./search-documents.ts";
import { publicViewer, type Viewer } from "../access/visibility.ts";

/** What a door knows of its caller; an MCP tool's context is one. */
interface RetrievalCaller {
  /** Who calls; absent, the public sources only. */
  viewer?: Viewer;
  /** Absent, the product's weights (only the evaluation passes others). */
  weights?: AnswerWeights;
  /** Where the reads start (an MCP session keeps one across its calls); absent, a fresh read session for this request. */
  reads?: ReadConsistency;
}

/** A search as a door asks it: the viewer, weights and hybrid retrieval come from the retrieval. */
type SearchArguments = Omit<Parameters<typeof searchDocuments>[1], "viewer">;
/** A question as a door asks it. */
type AnswerArguments = Omit<Parameters<typeof answerWithSources>[1], "viewer">;

/** Search and answers for one caller, every read of the request in one run of sessions (sessions.ts). */
interface Retrieval {
  search(request: SearchArguments): Promise<SearchResult>;
  /** The answer and, per reference, the chunk it draws on. */
  answer(request: AnswerArguments): Promise<SourcedAnswer>;
  /** Each named page's size in bytes (what REST adds to a result), read after and seeing at least what the search or answer saw. */
  contentLengths(names: readonly string[]): Promise<Map<string, number>>;
}

/**
 * The retrieval a door runs for `caller` against `env`'s corpus.
 *
 * @example const result = await retrievalFor(c.env, { viewer: c.get("viewer") }).search({ query: "rotate keys" });
 */
export function retrievalFor(env: Pick<Env, "DB"> & EmbeddingsVars, caller: RetrievalCaller = {}): Retrieval {
  const viewer = caller.viewer ?? publicViewer();
  const weights = caller.weights ?? DEFAULT_ANSWER_WEIGHTS;
  const reads = caller.reads ?? new ReadConsistency();
  const semantic = semanticSearchFor(env);
  return {
    search: (request) => reads.read(env.DB, (db) => searchDocuments(db, { ...request, viewer }, weights.ranking, semantic)),
    answer: (request) => reads.read(env.DB, (db) => answerWithSources(db, { ...request, viewer }, weights, semantic)),
    contentLengths: (names) => reads.read(env.DB, (db) => findContentLengths(db, names, viewer)),
  };
}
