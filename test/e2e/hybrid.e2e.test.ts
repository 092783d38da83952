// Hybrid retrieval end to end: `npm start` with EMBEDDINGS=http pointed at an embeddings
// server this test starts (node:http, OpenAI's `POST /v1/embeddings`). Its vectors are a fixed
// function of the text (test/embeddings/bag-of-words.ts: hashed words and a tiny synonym
// table): this proves the wiring from ingestion to search, not the quality of any model.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startEmbeddingsServer, type EmbeddingsServer } from "./support/embeddings-server.ts";
import { freePort, newStateDir, startServer, type RunningServer } from "./support/harness.ts";
import { ingest, serve } from "./support/readers.ts";

let embeddings: EmbeddingsServer;

const hybridArgs = () => ["--var", "EMBEDDINGS:http", "--var", `EMBEDDINGS_URL:${embeddings.url}`, "--var", "EMBEDDINGS_MODEL:bag-of-words-64", "--var", "VECTOR_INDEX:d1"];

/** A count from the server's local D1 file (read-only, beside the running server). */
function count(stateDir: string, table: string): number {
  const dir = join(stateDir, "v3", "d1", "miniflare-D1DatabaseObject");
  const file = readdirSync(dir).find((name) => name.endsWith(".sqlite") && name !== "metadata.sqlite");
  if (!file) throw new Error(`no D1 database in ${dir}`);
  const db = new DatabaseSync(join(dir, file), { readOnly: true });
  try {
    return (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

interface SearchBody {
  /** Absent when empty (proto3 JSON leaves out empty repeated fields). */
  results?: { parent: string; id: string; content: string }[];
}

async function search(server: string, query: string): Promise<{ status: number; timing: string; body: SearchBody }> {
  const response = await fetch(`${server}/v1/documents:searchDocumentChunks?${new URLSearchParams({ query, pageSize: "10" })}`);
  return { status: response.status, timing: response.headers.get("Server-Timing") ?? "", body: (await response.json()) as SearchBody };
}

const hits = (body: SearchBody) => (body.results ?? []).map((hit) => ({ parent: hit.parent, id: hit.id, content: hit.content }));
const API_KEYS_PAGE = "documents/almanac.dev/docs/api-keys-and-quotas";

let stateDir: string;
let server: RunningServer | undefined;
let embeddedByFirstStart = 0;

beforeAll(async () => {
  embeddings = await startEmbeddingsServer(await freePort());
  stateDir = newStateDir();
  server = await startServer(hybridArgs(), stateDir);
  embeddedByFirstStart = embeddings.texts;
});

afterAll(async () => {
  await server?.stop();
  await embeddings?.close();
});

describe("npm start with EMBEDDINGS=http", () => {
  it("embeds each chunk of the default corpus once", () => {
    expect(embeddedByFirstStart).toBeGreaterThan(100);
    expect(embeddedByFirstStart).toBe(count(stateDir, "chunks"));
    expect(count(stateDir, "chunk_vectors")).toBe(count(stateDir, "chunks"));
  });

  it("finds by meaning a page no word of the query is on, with embed and vector time in Server-Timing", async () => {
    const lexical = await search(inject("serverUrl"), "rescind a passcode");
    expect(lexical.body.results).toBeUndefined();
    const hybrid = await search(server?.url ?? "", "rescind a passcode");
    expect(hybrid.status).toBe(200);
    expect(hybrid.body.results?.[0]?.parent).toBe(API_KEYS_PAGE);
    expect(hybrid.timing).toMatch(/embed;dur=[\d.]+;desc="embedding the query", vector;dur=[\d.]+;desc="vector index query"/);
    expect(hybrid.timing).not.toContain("fallback");
  });

  it("answers callers as lexical search does while the embedder is down, saying so in Server-Timing", async () => {
    embeddings.down = true;
    try {
      for (const query of ["revoke an API key", "rescind a passcode", "How do filters work?"]) {
        const hybrid = await search(server?.url ?? "", query);
        const lexical = await search(inject("serverUrl"), query);
        expect(hybrid.status).toBe(200);
        expect(hits(hybrid.body)).toEqual(hits(lexical.body));
        expect(hybrid.timing).toContain('fallback;desc="lexical: POST');
      }
    } finally {
      embeddings.down = false;
    }
  });

  it("embeds nothing when started again on the same corpus", async () => {
    await server?.stop();
    const before = embeddings.texts;
    server = await startServer(hybridArgs(), stateDir);
    expect(embeddings.texts).toBe(before);
    expect((await search(server.url, "rescind a passcode")).body.results?.[0]?.parent).toBe(API_KEYS_PAGE);
  });

  it("npm run ingest -- site and -- llms embed what they write, as a folder's ingestion does", { timeout: 300_000 }, async () => {
    const site = await serve((request, response) => {
      const path = new URL(request.url ?? "/", "http://x").pathname;
      const pages = ["one", "two", "three"];
      if (path === "/docs/") {
        const links = pages.map((name) => `<a href="${name}.html">${name}</a>`).join(" ");
        response.writeHead(200, { "content-type": "text/html" }).end(`<html><head><title>Crawled</title></head><body><main><h1>Crawled</h1><p>Embedword index.</p>${links}</main></body></html>`);
      } else if (/^\/docs\/\w+\.html$/.test(path)) {
        response.writeHead(200, { "content-type": "text/html" }).end(`<html><head><title>${path}</title></head><body><main><h1>${path}</h1><p>Embedword page ${path}.</p></main></body></html>`);
      } else if (path === "/llms.txt") {
        response.writeHead(200, { "content-type": "text/plain" }).end(`# Listed\n\n## Docs\n\n${pages.map((name) => `- [${name}](/md/${name}.md)`).join("\n")}\n`);
      } else if (path.startsWith("/md/")) {
        response.writeHead(200, { "content-type": "text/markdown" }).end(`# ${path}\n\nListedword page ${path}.\n`);
      } else response.writeHead(404).end("not found");
    });
    const hybridEnv = { EMBEDDINGS: "http", EMBEDDINGS_URL: embeddings.url, EMBEDDINGS_MODEL: "bag-of-words-64", VECTOR_INDEX: "d1" };
    try {
      for (const args of [["site", `${site.url}/docs/`], ["llms", `${site.url}/llms.txt`, "--base-uri", "https://listed.example"]]) {
        const before = embeddings.texts;
        const run = await ingest([...args, "--persist-to", stateDir], 170_000, hybridEnv);
        expect(run.status, run.output).toBe(0);
        expect(run.output).toContain(`${embeddings.texts - before} chunks embedded (http:bag-of-words-64)`);
        expect(embeddings.texts - before).toBeGreaterThanOrEqual(3);
        expect(count(stateDir, "chunk_vectors")).toBe(count(stateDir, "chunks"));
      }
    } finally {
      await site.close();
    }
  });

  it("refuses to start when hybrid retrieval is misconfigured, saying what to set", async () => {
    await expect(startServer(["--var", "EMBEDDINGS:http"])).rejects.toThrow(/EMBEDDINGS=http needs EMBEDDINGS_URL.*EMBEDDINGS=http needs EMBEDDINGS_MODEL/s);
  });
});
