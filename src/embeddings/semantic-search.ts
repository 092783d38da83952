/**
 * What search and ingestion are handed when hybrid retrieval is on: an
 * embedder and a way to open the vector index, built once per configuration.
 */
import type { D1Reader } from "../d1/sessions.ts";
import { describeProblems, readEmbeddingsConfig, type EmbeddingsConfig, type EmbeddingsVars } from "./config.ts";
import { d1VectorIndex } from "./d1-index.ts";
import type { Embedder } from "./embedder.ts";
import { httpEmbedder } from "./openai-http.ts";
import type { VectorIndex } from "./vector-index.ts";
import { vectorizeIndex } from "./vectorize-index.ts";
import { workersAiEmbedder } from "./workers-ai.ts";

/** An embedder and its vector index. */
export interface SemanticSearch {
  embedder: Embedder;
  /** The index, reading through `db` (a request's read session, or the database for ingestion). */
  index(db: D1Reader): VectorIndex;
}

/** Builds the embedder and index a valid hybrid configuration names. */
export function semanticSearchOf(config: Extract<EmbeddingsConfig, { mode: "hybrid" }>): SemanticSearch {
  const { embedder: plan, index } = config;
  const embedder = plan.kind === "workers-ai" ? workersAiEmbedder(plan.ai, plan.model) : httpEmbedder(plan);
  return { embedder, index: index.kind === "vectorize" ? () => vectorizeIndex(index.index) : (db) => d1VectorIndex(db) };
}

const built = new WeakMap<object, SemanticSearch | null>();

/**
 * The Worker's hybrid retrieval for `env`, or undefined when EMBEDDINGS=off.
 * A Worker has no start-up to refuse, so a misconfiguration is logged (once
 * per env, saying what to set) and search stays lexical: an operator sees it
 * in the log, and no caller ever gets an error for it. `npm start` and the
 * CLI refuse the same misconfiguration before anything runs.
 */
export function semanticSearchFor(env: EmbeddingsVars): SemanticSearch | undefined {
  // EMBEDDINGS=off reads nothing else, so the default path costs a property read.
  if (((env.EMBEDDINGS ?? "").trim() || "off") === "off") return undefined;
  const cached = built.get(env);
  if (cached !== undefined) return cached ?? undefined;
  const config = readEmbeddingsConfig(env);
  if (config.mode === "invalid") console.error(`${describeProblems(config.problems)}; searching lexically until it is fixed`);
  const search = config.mode === "hybrid" ? semanticSearchOf(config) : null;
  built.set(env, search);
  return search ?? undefined;
}
