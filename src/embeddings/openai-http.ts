import { EmbeddingError, checkVectors, type Embedder } from "./embedder.ts";

/**
 * Texts per request to an OpenAI-compatible server. OpenAI takes 2048 inputs,
 * but Hugging Face TEI refuses more than 32 by default (--max-client-batch-size)
 * and Ollama and llama.cpp embed a request's inputs one after another, so 32
 * suits every server the issue names while keeping requests short.
 */
const HTTP_BATCH_SIZE = 32;

/** OpenAI's embeddings response: `data[i].embedding` for input `data[i].index`. */
interface EmbeddingsResponse {
  data?: { embedding?: number[]; index?: number }[];
}

/**
 * An embedder over `POST <baseUrl>/embeddings` (OpenAI's API, which Ollama,
 * TEI, llama.cpp's server, vLLM and hosted APIs all speak), with an optional
 * bearer key.
 *
 * @example httpEmbedder({ baseUrl: "http://localhost:11434/v1", model: "nomic-embed-text" })
 */
export function httpEmbedder(options: { baseUrl: string; model: string; apiKey?: string; batchSize?: number }): Embedder {
  const url = `${options.baseUrl.replace(/\/+$/, "")}/embeddings`;
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (options.apiKey) headers.Authorization = `Bearer ${options.apiKey}`;
  return {
    model: `http:${options.model}`,
    batchSize: options.batchSize ?? HTTP_BATCH_SIZE,
    async embed(texts, signal) {
      let response: Response;
      try {
        response = await fetch(url, { method: "POST", headers, body: JSON.stringify({ model: options.model, input: texts }), signal });
      } catch (error) {
        throw new EmbeddingError(`POST ${url} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (!response.ok) {
        const detail = (await response.text().catch(() => "")).slice(0, 200);
        throw new EmbeddingError(`POST ${url} answered ${response.status}${detail ? `: ${detail}` : ""}`);
      }
      const body = (await response.json().catch(() => ({}))) as EmbeddingsResponse;
      const data = Array.isArray(body.data) ? [...body.data] : [];
      // The spec gives each embedding its input's index; most servers keep the order anyway.
      data.sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
      return checkVectors(data.map((item) => item.embedding), texts.length, `POST ${url}`);
    },
  };
}
