// The bag-of-words stand-in as an Embedder in the Worker under test, counting what it is asked.
import type { Embedder } from "../../src/embeddings/embedder.ts";
import { checkVectors, EmbeddingError } from "../../src/embeddings/embedder.ts";
import { bagOfWords } from "./bag-of-words.ts";

/** An embedder over bagOfWords that records every text it embeds and can be made to fail. */
export class BagEmbedder implements Embedder {
  readonly model: string;
  readonly batchSize: number;
  readonly texts: string[] = [];
  readonly calls: number[] = [];
  /** While set, every call fails (the provider is down). */
  down = false;

  constructor(options: { model?: string; batchSize?: number } = {}) {
    this.model = options.model ?? "test:bag-of-words-64";
    this.batchSize = options.batchSize ?? 16;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (texts.length > this.batchSize) throw new Error(`asked for ${texts.length} texts in one call, more than the batch size ${this.batchSize}`);
    if (this.down) throw new EmbeddingError("the test embedder is down");
    this.calls.push(texts.length);
    this.texts.push(...texts);
    return checkVectors(texts.map(bagOfWords), texts.length, "test embedder");
  }
}
