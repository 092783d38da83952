// `npm run eval -- <file> --embeddings <URL>`: the same questions through lexical and hybrid
// retrieval over one database, side by side, with the search latency of each.
import { evaluate, type EvaluationRun } from "./evaluate.ts";
import type { Question } from "./questions.ts";
import { ReadConsistency } from "../src/d1/sessions.ts";
import { searchDocumentsTool } from "../src/tools/search-documents.ts";

/** The variables that switch hybrid retrieval on for an OpenAI-compatible embedder over the D1 index. */
export function hybridVars(url: string, model: string): Pick<Env, "EMBEDDINGS" | "EMBEDDINGS_URL" | "EMBEDDINGS_MODEL" | "VECTOR_INDEX"> {
  return { EMBEDDINGS: "http", EMBEDDINGS_URL: url, EMBEDDINGS_MODEL: model, VECTOR_INDEX: "d1" };
}

/** Both runs, and per question the milliseconds one search_documents call took in each. */
export interface HybridComparison {
  lexical: EvaluationRun;
  hybrid: EvaluationRun;
  latency: { lexical: number[]; hybrid: number[] };
}

/**
 * Asks every question with `env` as configured (lexical: EMBEDDINGS=off)
 * and with `hybrid` variables on top of it, then times one search per
 * question each way, alternating so neither side gets a warmer cache.
 */
export async function compareHybrid(env: Env, questions: readonly Question[], hybrid: Partial<Env>, options: { answers: boolean }): Promise<HybridComparison> {
  const lexicalEnv: Env = { ...env, EMBEDDINGS: "off" };
  const hybridEnv: Env = { ...env, ...hybrid };
  const lexical = await evaluate(lexicalEnv, questions, options);
  const fused = await evaluate(hybridEnv, questions, options);
  const latency = { lexical: [] as number[], hybrid: [] as number[] };
  for (const question of questions) {
    for (const [side, sideEnv] of [["lexical", lexicalEnv], ["hybrid", hybridEnv]] as const) {
      const started = performance.now();
      await searchDocumentsTool.run(sideEnv, { query: question.query, pageSize: 10 }, { reads: new ReadConsistency() });
      latency[side].push(performance.now() - started);
    }
  }
  return { lexical, hybrid: fused, latency };
}

/** The value at share `p` (0–1) of sorted `values`. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
}
