import { EmbeddingError, checkVectors, type Embedder } from "./embedder.ts";

/** The Workers AI embedding models Almanac knows the input of (the generated `AiModels` types check each call). */
export const WORKERS_AI_MODELS = ["@cf/baai/bge-base-en-v1.5", "@cf/baai/bge-small-en-v1.5", "@cf/baai/bge-large-en-v1.5", "@cf/google/embeddinggemma-300m"] as const;
export type WorkersAiModel = (typeof WORKERS_AI_MODELS)[number];

/** The default: bge-base-en-v1.5, 768 dimensions, 512 input tokens (developers.cloudflare.com/workers-ai/models/bge-base-en-v1.5). */
export const DEFAULT_WORKERS_AI_MODEL: WorkersAiModel = "@cf/baai/bge-base-en-v1.5";

/**
 * Texts per Workers AI call: the bge models' input schema takes at most 100
 * texts (`text` as an array, maxItems 100), each cut at 512 tokens; 100 such
 * texts stay well inside the model's 153,600-token context window.
 */
const WORKERS_AI_BATCH_SIZE = 100;

/**
 * An embedder on the `AI` binding. bge models pool with `cls`, the pooling
 * Cloudflare recommends for accuracy; its vectors do not mix with `mean`
 * ones, so the pooling is part of the stored model id.
 *
 * @example workersAiEmbedder(env.AI)
 */
export function workersAiEmbedder(ai: Ai, model: WorkersAiModel = DEFAULT_WORKERS_AI_MODEL): Embedder {
  const provider = `Workers AI ${model}`;
  const run = async (text: string[]): Promise<unknown> => {
    if (model === "@cf/google/embeddinggemma-300m") return ai.run(model, { text });
    return ai.run(model, { text, pooling: "cls" });
  };
  return {
    model: model === "@cf/google/embeddinggemma-300m" ? `workers-ai:${model}` : `workers-ai:${model}#cls`,
    batchSize: WORKERS_AI_BATCH_SIZE,
    async embed(texts) {
      let output: unknown;
      try {
        output = await run([...texts]);
      } catch (error) {
        throw new EmbeddingError(`${provider} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
      // A `requests` (async queue) call answers { request_id }; Almanac never makes one, so no data is an error.
      const data = (output as { data?: number[][] } | null)?.data;
      if (!Array.isArray(data)) throw new EmbeddingError(`${provider} answered without data`);
      return checkVectors(data, texts.length, provider);
    },
  };
}

/** Whether `model` is one of WORKERS_AI_MODELS. */
export function isWorkersAiModel(model: string): model is WorkersAiModel {
  return (WORKERS_AI_MODELS as readonly string[]).includes(model);
}
