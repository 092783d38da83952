/**
 * Hybrid retrieval's configuration ([vars] EMBEDDINGS, EMBEDDINGS_URL,
 * EMBEDDINGS_MODEL, VECTOR_INDEX, the secret EMBEDDINGS_API_KEY, and the AI
 * and VECTORIZE bindings) read into a plan, or the list of what to set.
 * `EMBEDDINGS=off`, the default, needs nothing and changes nothing.
 */
import type { VectorizeBinding } from "./vectorize-index.ts";
import { DEFAULT_WORKERS_AI_MODEL, WORKERS_AI_MODELS, isWorkersAiModel, type WorkersAiModel } from "./workers-ai.ts";

/** What the configuration is read from: the Worker's env, or the CLI's merged variables and bindings. */
export interface EmbeddingsVars {
  EMBEDDINGS?: string;
  EMBEDDINGS_URL?: string;
  EMBEDDINGS_MODEL?: string;
  EMBEDDINGS_API_KEY?: string;
  VECTOR_INDEX?: string;
  AI?: Ai;
  VECTORIZE?: VectorizeBinding;
}

/** Which embedder, with what it needs. */
export type EmbedderPlan = { kind: "workers-ai"; ai: Ai; model: WorkersAiModel } | { kind: "http"; baseUrl: string; model: string; apiKey?: string };

/** Which vector index. */
export type IndexPlan = { kind: "d1" } | { kind: "vectorize"; index: VectorizeBinding };

/** Hybrid retrieval switched off, switched on with a plan, or refused with what to set. */
export type EmbeddingsConfig = { mode: "off" } | { mode: "hybrid"; embedder: EmbedderPlan; index: IndexPlan } | { mode: "invalid"; problems: string[] };

const MODES = ["off", "workers-ai", "http"];
const INDEXES = ["d1", "vectorize"];

/**
 * Reads the embeddings configuration. Every problem is listed with what to
 * set, so one start-up message fixes them all.
 *
 * @example readEmbeddingsConfig({ EMBEDDINGS: "http" }) // { mode: "invalid", problems: ["EMBEDDINGS=http needs EMBEDDINGS_URL …", …] }
 */
export function readEmbeddingsConfig(vars: EmbeddingsVars): EmbeddingsConfig {
  const mode = (vars.EMBEDDINGS ?? "").trim() || "off";
  if (mode === "off") return { mode: "off" };
  const problems: string[] = [];
  if (!MODES.includes(mode)) return { mode: "invalid", problems: [`EMBEDDINGS is "${mode}"; set it to off (the default), workers-ai or http`] };
  const model = (vars.EMBEDDINGS_MODEL ?? "").trim();
  let embedder: EmbedderPlan | undefined;
  if (mode === "workers-ai") {
    const chosen = model || DEFAULT_WORKERS_AI_MODEL;
    if (!isWorkersAiModel(chosen)) problems.push(`EMBEDDINGS_MODEL "${chosen}" is not a Workers AI embedding model Almanac knows; use one of ${WORKERS_AI_MODELS.join(", ")} (or leave it empty for ${DEFAULT_WORKERS_AI_MODEL})`);
    if (!vars.AI) problems.push('EMBEDDINGS=workers-ai needs the AI binding: uncomment `[ai] binding = "AI"` in wrangler.toml (Workers AI runs remotely only; see corpus/docs/deploying.md)');
    if (vars.AI && isWorkersAiModel(chosen)) embedder = { kind: "workers-ai", ai: vars.AI, model: chosen };
  } else {
    const baseUrl = (vars.EMBEDDINGS_URL ?? "").trim();
    if (!baseUrl) problems.push("EMBEDDINGS=http needs EMBEDDINGS_URL, the API base of an OpenAI-compatible server (Almanac POSTs to <EMBEDDINGS_URL>/embeddings), e.g. http://localhost:11434/v1");
    else if (!/^https?:\/\/[^/]/.test(baseUrl)) problems.push(`EMBEDDINGS_URL "${baseUrl}" is not an http(s) URL; give the API base, e.g. http://localhost:11434/v1`);
    if (!model) problems.push("EMBEDDINGS=http needs EMBEDDINGS_MODEL, the model the server embeds with, e.g. nomic-embed-text");
    const apiKey = (vars.EMBEDDINGS_API_KEY ?? "").trim();
    if (problems.length === 0) embedder = { kind: "http", baseUrl, model, ...(apiKey ? { apiKey } : {}) };
  }
  const indexKind = (vars.VECTOR_INDEX ?? "").trim() || "d1";
  let index: IndexPlan | undefined;
  if (!INDEXES.includes(indexKind)) problems.push(`VECTOR_INDEX is "${indexKind}"; set it to d1 (the default) or vectorize`);
  else if (indexKind === "vectorize" && !vars.VECTORIZE) {
    problems.push('VECTOR_INDEX=vectorize needs the VECTORIZE binding: create the index (npx wrangler vectorize create almanac --dimensions=768 --metric=cosine) and uncomment `[[vectorize]]` in wrangler.toml');
  } else index = indexKind === "vectorize" && vars.VECTORIZE ? { kind: "vectorize", index: vars.VECTORIZE } : { kind: "d1" };
  if (problems.length > 0 || !embedder || !index) return { mode: "invalid", problems };
  return { mode: "hybrid", embedder, index };
}

/** The problems as one message a person can act on. */
export function describeProblems(problems: readonly string[]): string {
  return `hybrid retrieval is misconfigured: ${problems.join("; ")}`;
}
