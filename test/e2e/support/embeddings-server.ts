// A stand-in embeddings server (OpenAI's `POST /v1/embeddings`) for tests and for trying the
// wiring by hand: vectors are test/embeddings/bag-of-words.ts, a fixed function of the text,
// so it proves wiring, never quality. `npx node test/e2e/support/embeddings-server.ts [port]` serves it.
import { createServer, type Server } from "node:http";
import { bagOfWords } from "../../support/bag-of-words.ts";

/** A running stand-in: its API base, how many texts it embedded, and a switch to make it fail. */
export interface EmbeddingsServer {
  url: string;
  texts: number;
  /** While true, every request answers 503. */
  down: boolean;
  close(): Promise<void>;
}

/** Starts the stand-in on `port` of 127.0.0.1. */
export async function startEmbeddingsServer(port: number): Promise<EmbeddingsServer> {
  const state: EmbeddingsServer = { url: `http://127.0.0.1:${port}/v1`, texts: 0, down: false, close: async () => {} };
  const server: Server = createServer((request, response) => {
    let body = "";
    request.on("data", (data: Buffer) => (body += data.toString()));
    request.on("end", () => {
      if (request.method !== "POST" || request.url !== "/v1/embeddings" || state.down) {
        response.writeHead(state.down ? 503 : 404).end("unavailable");
        return;
      }
      const { input, model } = JSON.parse(body) as { input: string[]; model: string };
      state.texts += input.length;
      response.writeHead(200, { "Content-Type": "application/json" });
      response.end(JSON.stringify({ object: "list", model, data: input.map((text, index) => ({ object: "embedding", index, embedding: bagOfWords(text) })) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  state.close = () => new Promise((resolve) => server.close(() => resolve()));
  return state;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const server = await startEmbeddingsServer(Number(process.argv[2] ?? 0) || 11435);
  console.log(`stand-in embeddings server (bag of words, 64 dimensions): ${server.url}`);
}
