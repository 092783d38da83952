/**
 * The embedder port: texts in, one vector per text out. Adapters: Workers AI
 * (workers-ai.ts) and any OpenAI-compatible `POST …/embeddings` server
 * (openai-http.ts). Everything else in hybrid retrieval (batching, retries,
 * deadlines, the vector index, fusion) is the same whichever one runs.
 */

/** Something that turns texts into vectors. */
export interface Embedder {
  /** Stored with every vector ("http:nomic-embed-text"), so a change of model re-embeds. */
  readonly model: string;
  /** The most texts one call may carry (the provider's documented limit, or a modest default). */
  readonly batchSize: number;
  /** One vector per text, in order; throws EmbeddingError when the provider fails or answers nonsense. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

/** The provider failed, timed out or answered something that is not one vector per text. */
export class EmbeddingError extends Error {
  override readonly name = "EmbeddingError";
}

/**
 * A chunk's title, heading path and text as they are embedded: cut to what a
 * 512-token embedding model reads (bge-base-en-v1.5's limit, about four
 * characters a token), so a long section never makes a provider refuse the batch.
 */
export const EMBEDDED_TEXT_CHARS = 2000;

/** The text a chunk is embedded by: its page title, then its content (which starts with its heading path). */
export function embeddedText(title: string, content: string): string {
  return `${title}\n${content}`.slice(0, EMBEDDED_TEXT_CHARS);
}

/** Vectors are stored and compared at unit length, so cosine similarity is a dot product. */
export function normalise(values: ArrayLike<number>): Float32Array {
  let norm = 0;
  for (let i = 0; i < values.length; i += 1) norm += (values[i] ?? 0) ** 2;
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  const unit = new Float32Array(values.length);
  for (let i = 0; i < values.length; i += 1) unit[i] = (values[i] ?? 0) * scale;
  return unit;
}

/** Checks a provider's answer: as many vectors as texts, all of one length, numbers only. */
export function checkVectors(vectors: readonly (readonly number[] | undefined)[], count: number, provider: string): Float32Array[] {
  if (vectors.length !== count) throw new EmbeddingError(`${provider} returned ${vectors.length} vectors for ${count} texts`);
  const dimensions = vectors[0]?.length ?? 0;
  return vectors.map((vector, index) => {
    if (!Array.isArray(vector) || vector.length === 0 || vector.length !== dimensions || vector.some((value) => typeof value !== "number" || !Number.isFinite(value))) {
      throw new EmbeddingError(`${provider} returned no usable vector for text ${index} (expected ${dimensions} numbers)`);
    }
    return normalise(vector);
  });
}

/** How ingestion retries a failed batch: attempts after the first, and the first wait (doubled each time). */
const EMBED_RETRIES = { attempts: 3, firstDelayMs: 500 };

/**
 * Embeds `texts` in batches of the embedder's size, each batch retried with
 * exponential backoff (a provider's 429 or a dropped connection is usually
 * gone a second later), reporting each batch's vectors as they arrive so
 * they are stored before the next one is asked for.
 */
export async function embedInBatches(
  embedder: Embedder,
  texts: readonly string[],
  onBatch: (start: number, vectors: Float32Array[]) => Promise<void>,
  retries: { attempts: number; firstDelayMs: number } = EMBED_RETRIES,
): Promise<void> {
  for (let start = 0; start < texts.length; start += embedder.batchSize) {
    const batch = texts.slice(start, start + embedder.batchSize);
    for (let attempt = 0; ; attempt += 1) {
      try {
        await onBatch(start, await embedder.embed(batch));
        break;
      } catch (error) {
        if (attempt >= retries.attempts) throw error;
        await new Promise((resolve) => setTimeout(resolve, retries.firstDelayMs * 2 ** attempt));
      }
    }
  }
}

/**
 * Runs `work` with an AbortSignal that fires after `milliseconds`, and
 * rejects with EmbeddingError then even if `work` ignores the signal: a
 * query never waits on a slow provider longer than its deadline.
 */
export async function withDeadline<T>(milliseconds: number, what: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new EmbeddingError(`${what} gave no answer within ${milliseconds} ms`));
    }, milliseconds);
  });
  try {
    return await Promise.race([work(controller.signal), expired]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}
