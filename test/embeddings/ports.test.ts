// The pure parts of hybrid retrieval: fusion, configuration, Vectorize's filter, batching and deadlines.
import { describe, expect, it } from "vitest";
import { compileFilter } from "../../src/documents/search/filter.ts";
import { RRF_K, fuseAtEqualDepth, reciprocalRankFusion } from "../../src/documents/search/fusion.ts";
import { readEmbeddingsConfig } from "../../src/embeddings/config.ts";
import { EmbeddingError, embedInBatches, embeddedText, EMBEDDED_TEXT_CHARS, withDeadline, type Embedder } from "../../src/embeddings/embedder.ts";
import { vectorizeFilter } from "../../src/embeddings/vectorize-index.ts";
import { vectorIdOf } from "../../src/embeddings/vector-ids.ts";

describe("reciprocal rank fusion", () => {
  it("ranks first what both lists rank well, scoring 1/(k + rank)", () => {
    const fused = reciprocalRankFusion([["a", "b", "c"], ["d", "b", "e"]], (x) => x);
    expect(fused.map((entry) => entry.item)).toEqual(["b", "a", "d", "c", "e"]);
    expect(fused[0]?.score).toBe(2 / (RRF_K + 2));
  });

  it("breaks ties by first appearance, the first list first, so the same inputs always give the same order", () => {
    expect(reciprocalRankFusion([["a", "b"], ["c", "d"]], (x) => x).map((entry) => entry.item)).toEqual(["a", "c", "b", "d"]);
  });

  it("fuses the lexical ranking's first places with the vectors, so a chunk deep in the lexical ranking does not outrank its first place", () => {
    const lexical = Array.from({ length: 200 }, (_, rank) => `l${rank}`);
    const fused = fuseAtEqualDepth(lexical, ["l150", "l1"], (x) => x, 50).map((entry) => entry.item);
    // Over both whole lists, l150 would be second (1/211 + 1/61 against l0's 1/61).
    expect(fused.slice(0, 3)).toEqual(["l1", "l0", "l150"]);
    expect(fused.indexOf("l150")).toBeLessThan(fused.indexOf("l2"));
  });

  it("keeps every lexical item once, the deeper ones in their order after the fused ones", () => {
    const lexical = Array.from({ length: 120 }, (_, rank) => `l${rank}`);
    const fused = fuseAtEqualDepth(lexical, ["v0", "l90", "l3"], (x) => x, 50);
    const items = fused.map((entry) => entry.item);
    expect(new Set(items).size).toBe(items.length);
    expect([...items].sort()).toEqual([...lexical, "v0"].sort());
    expect(items.slice(-69)).toEqual(lexical.slice(50).filter((item) => item !== "l90"));
    // Scores fall along the list, so a later sort keeps this order.
    expect(fused.every((entry, index) => index === 0 || entry.score <= (fused[index - 1]?.score ?? Infinity))).toBe(true);
  });
});

describe("the embeddings configuration", () => {
  it("is off by default, reading nothing else", () => {
    expect(readEmbeddingsConfig({})).toEqual({ mode: "off" });
    expect(readEmbeddingsConfig({ EMBEDDINGS: "off", VECTOR_INDEX: "nonsense" })).toEqual({ mode: "off" });
  });

  it("says what to set for http", () => {
    const config = readEmbeddingsConfig({ EMBEDDINGS: "http" });
    expect(config).toEqual({
      mode: "invalid",
      problems: [
        "EMBEDDINGS=http needs EMBEDDINGS_URL, the API base of an OpenAI-compatible server (Almanac POSTs to <EMBEDDINGS_URL>/embeddings), e.g. http://localhost:11434/v1",
        "EMBEDDINGS=http needs EMBEDDINGS_MODEL, the model the server embeds with, e.g. nomic-embed-text",
      ],
    });
    expect(readEmbeddingsConfig({ EMBEDDINGS: "http", EMBEDDINGS_URL: "localhost:11434", EMBEDDINGS_MODEL: "m" })).toMatchObject({
      problems: ['EMBEDDINGS_URL "localhost:11434" is not an http(s) URL; give the API base, e.g. http://localhost:11434/v1'],
    });
  });

  it("refuses workers-ai and vectorize without their bindings, and unknown values, naming the fix", () => {
    expect(readEmbeddingsConfig({ EMBEDDINGS: "workers-ai", VECTOR_INDEX: "vectorize" })).toMatchObject({
      mode: "invalid",
      problems: [expect.stringContaining('uncomment `[ai] binding = "AI"`'), expect.stringContaining("npx wrangler vectorize create almanac --dimensions=768 --metric=cosine")],
    });
    expect(readEmbeddingsConfig({ EMBEDDINGS: "openai" })).toEqual({ mode: "invalid", problems: ['EMBEDDINGS is "openai"; set it to off (the default), workers-ai or http'] });
    expect(readEmbeddingsConfig({ EMBEDDINGS: "http", EMBEDDINGS_URL: "http://x/v1", EMBEDDINGS_MODEL: "m", VECTOR_INDEX: "pinecone" })).toMatchObject({
      problems: ['VECTOR_INDEX is "pinecone"; set it to d1 (the default) or vectorize'],
    });
  });

  it("plans an http embedder over D1 with an optional key", () => {
    expect(readEmbeddingsConfig({ EMBEDDINGS: "http", EMBEDDINGS_URL: "http://localhost:11434/v1", EMBEDDINGS_MODEL: "nomic-embed-text", EMBEDDINGS_API_KEY: "k" })).toEqual({
      mode: "hybrid",
      embedder: { kind: "http", baseUrl: "http://localhost:11434/v1", model: "nomic-embed-text", apiKey: "k" },
      index: { kind: "d1" },
    });
  });
});

describe("the vector index's filter, from a search filter's parse", () => {
  const constraints = (filter: string) => compileFilter(filter)?.constraints;
  const of = (filter: string) => vectorizeFilter(constraints(filter));

  it("keeps the data sources and versions every admitted page has, and nothing a page could lack", () => {
    expect(constraints('data_source = "dart.dev"')).toEqual({ dataSources: ["dart.dev"] });
    expect(constraints('data_source = "dart.dev" OR data_source = "go.dev"')).toEqual({ dataSources: ["dart.dev", "go.dev"] });
    expect(constraints('data_source = "dart.dev" OR uri = "https://go.dev/x"')).toEqual({});
    expect(constraints('(data_source = "a" OR data_source = "b") AND data_source = "b" AND version = "v2"')).toEqual({ dataSources: ["b"], versions: ["v2"] });
    expect(constraints('data_source != "a" data_source != "b" update_time > "2026-01-01T00:00:00Z"')).toEqual({ excludedDataSources: ["a", "b"] });
    expect(constraints('(data_source != "a" AND version = "v1") OR (data_source != "a" AND version = "v2")')).toEqual({ excludedDataSources: ["a"], versions: ["v1", "v2"] });
    expect(constraints('NOT data_source = "dart.dev"')).toEqual({});
    expect(constraints('version = "*"')).toEqual({});
    // A filter no page can meet narrows to no data source at all.
    expect(constraints('data_source = "a" AND data_source = "b"')).toEqual({ dataSources: [] });
  });

  it("gives Vectorize the data sources (its metadata index), never the versions", () => {
    expect(of('data_source = "dart.dev"')).toEqual({ data_source: { $eq: "dart.dev" } });
    expect(of('data_source = "dart.dev" OR data_source = "go.dev"')).toEqual({ data_source: { $in: ["dart.dev", "go.dev"] } });
    expect(of('data_source != "dart.dev" AND data_source != "go.dev"')).toEqual({ data_source: { $nin: ["dart.dev", "go.dev"] } });
    expect(of('data_source = "dart.dev" AND update_time > "2026-01-01T00:00:00Z"')).toEqual({ data_source: { $eq: "dart.dev" } });
    expect(of('version = "v2"')).toBeUndefined();
    expect(of('NOT data_source = "dart.dev"')).toBeUndefined();
    expect(vectorizeFilter(undefined)).toBeUndefined();
  });
});

describe("embedding in batches", () => {
  const counting = (fail: number[]): Embedder & { calls: string[][] } => {
    const calls: string[][] = [];
    return {
      model: "test",
      batchSize: 2,
      calls,
      async embed(texts) {
        calls.push([...texts]);
        if (fail.shift()) throw new EmbeddingError("429 Too Many Requests");
        return texts.map(() => new Float32Array([1]));
      },
    };
  };

  it("sends batches within the embedder's size and retries a failed one with backoff", async () => {
    const embedder = counting([0, 1, 1, 0]);
    const stored: number[] = [];
    await embedInBatches(embedder, ["a", "b", "c", "d", "e"], async (start, vectors) => void stored.push(start, vectors.length), { attempts: 3, firstDelayMs: 1 });
    expect(embedder.calls).toEqual([["a", "b"], ["c", "d"], ["c", "d"], ["c", "d"], ["e"]]);
    expect(stored).toEqual([0, 2, 2, 2, 4, 1]);
  });

  it("gives up after the last retry with the provider's error", async () => {
    await expect(embedInBatches(counting([1, 1]), ["a"], async () => {}, { attempts: 1, firstDelayMs: 1 })).rejects.toThrow("429 Too Many Requests");
  });
});

describe("deadlines and ids", () => {
  it("stops waiting at the deadline even when the work ignores its signal", async () => {
    await expect(withDeadline(20, "the embedder", () => new Promise(() => {}))).rejects.toThrow("the embedder gave no answer within 20 ms");
  });

  it("cuts the embedded text to what a 512-token model reads", () => {
    expect(embeddedText("Title", "x".repeat(5000))).toHaveLength(EMBEDDED_TEXT_CHARS);
  });

  it("makes vector ids of 64 characters, Vectorize's limit, however long the page name", async () => {
    expect(await vectorIdOf(`documents/example.com/${"a".repeat(500)}`, "intro")).toMatch(/^[0-9a-f]{64}$/);
  });
});
