// /mcp serves both protocol eras at one URL, through the Worker's own fetch
// handler: 2026-07-28 requests statelessly in the Worker, 2025-era ones in
// their Durable Object session. Raw HTTP, so statuses, headers and the exact
// JSON-RPC bodies are what is checked.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { syncDocuments } from "../../src/documents/ingest/write-corpus.ts";
import { prepareSite, siteFor } from "../../src/documents/ingest/prepare-pages.ts";
import { RESOURCES_PER_PAGE } from "../../src/tools/document-resources.ts";
import { loadCorpus } from "../support/corpus.ts";
import { messages, openSession, post } from "../support/mcp-http.ts";

const MODERN = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientInfo": { name: "dual-era-test", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** A 2026-07-28 request: its envelope in `_meta`, its method (and name) in headers. */
function modern(id: string | number, method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const named = typeof params.name === "string" ? params.name : typeof params.uri === "string" ? params.uri : undefined;
  const name: Record<string, string> = named === undefined ? {} : { "Mcp-Name": named };
  return post(
    { jsonrpc: "2.0", id, method, params: { ...params, _meta: { ...META, ...(params._meta as object) } } },
    { "MCP-Protocol-Version": MODERN, "Mcp-Method": method, ...name, ...headers },
  );
}

// Tests read deep into JSON-RPC bodies; `any` keeps each expectation one line.
type Json = any;

async function one(response: Response): Promise<Json> {
  const [message] = await messages(response);
  return message;
}

beforeAll(async () => {
  await loadCorpus();
  // More pages than one resources/list page holds, under a second data source.
  const files = Array.from({ length: RESOURCES_PER_PAGE + 7 }, (_, i) => ({ path: `page-${String(i).padStart(3, "0")}.md`, text: `# Page ${i}\n\nText of page ${i}.` }));
  const site = await prepareSite(files, siteFor("https://many.example/docs"));
  await syncDocuments(env.DB, "https://many.example/docs", site.documents, { prune: false });
});

describe("routing by the SDK's classifier", () => {
  it("serves a 2026-07-28 request in the Worker, with no session", async () => {
    const response = await modern(1, "tools/list");
    expect(response.status).toBe(200);
    expect(response.headers.get("mcp-session-id")).toBeNull();
    const body = await one(response);
    expect(body.id).toBe(1);
    expect(body.result.tools.map((tool: { name: string }) => tool.name)).toContain("answer_query");
  });

  it("gives an initialize its Durable Object session, as before", async () => {
    const session = await openSession();
    expect(session["Mcp-Session-Id"]).toMatch(/\S/);
    const body = await one(await post({ jsonrpc: "2.0", id: 2, method: "tools/list" }, session));
    expect(body.result.tools).toHaveLength(5);
  });

  it("answers an unknown session id with 404, whatever the era", async () => {
    const response = await post({ jsonrpc: "2.0", id: 3, method: "tools/list" }, { "Mcp-Session-Id": "no-such-session", "MCP-Protocol-Version": "2025-06-18" });
    expect(response.status).toBe(404);
  });
});

describe("server/discover", () => {
  it("names the server, its instructions, what it honours and the revisions it serves", async () => {
    const body = await one(await modern("d", "server/discover"));
    expect(body.id).toBe("d");
    expect(body.result).toMatchObject({
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "almanac" } },
      supportedVersions: [MODERN],
      capabilities: { tools: {}, resources: {}, completions: {} },
      ttlMs: 3_600_000,
      cacheScope: "public",
    });
    expect(body.result.instructions).toContain("search_documents");
    expect(body.result.capabilities.logging).toBeUndefined();
  });
});

describe("the 2026-07-28 validation ladder", () => {
  it("refuses Mcp-Name headers that disagree with the body with -32020 and the request's id", async () => {
    const response = await modern(7, "tools/call", { name: "search_documents", arguments: { query: "keys" } }, { "Mcp-Name": "answer_query" });
    expect(response.status).toBe(400);
    expect(await one(response)).toMatchObject({ id: 7, error: { code: -32020 } });
  });

  it("answers an unsupported revision with the versions it supports", async () => {
    const response = await modern(8, "tools/list", { _meta: { "io.modelcontextprotocol/protocolVersion": "2099-01-01" } }, { "MCP-Protocol-Version": "2099-01-01" });
    const body = await one(response);
    expect(body.id).toBe(8);
    expect(body.error.data.supported).toContain(MODERN);
  });

  it("answers a method it does not serve with HTTP 404 and -32601", async () => {
    const response = await modern(9, "prompts/list");
    expect(response.status).toBe(404);
    expect(await one(response)).toMatchObject({ id: 9, error: { code: -32601 } });
  });
});

describe("cache hints", () => {
  it.each([
    ["tools/list", 3_600_000],
    ["resources/templates/list", 3_600_000],
    ["resources/list", 60_000],
  ])("%s may be kept %i ms by any cache", async (method, ttlMs) => {
    expect((await one(await modern(1, method))).result).toMatchObject({ ttlMs, cacheScope: "public" });
  });
});

describe("documents as resources, in both eras", () => {
  it("pages through every document in name order with a cursor", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const body = await one(await modern(1, "resources/list", cursor ? { cursor } : {}));
      seen.push(...body.result.resources.map((resource: { name: string }) => resource.name));
      cursor = body.result.nextCursor;
    } while (cursor);
    const { results } = await env.DB.prepare("SELECT name FROM documents ORDER BY name").all<{ name: string }>();
    expect(seen).toEqual(results.map((row) => row.name));
    expect(seen.length).toBeGreaterThan(RESOURCES_PER_PAGE);
  });

  it("refuses a cursor it did not issue with -32602", async () => {
    const body = await one(await modern(1, "resources/list", { cursor: "not-a-cursor" }));
    expect(body.error).toMatchObject({ code: -32602, message: expect.stringContaining("INVALID_ARGUMENT: cursor is not one this server issued") });
  });

  it("reads a page as Markdown at its own uri, in a 2025 session too", async () => {
    const modernRead = await one(await modern(1, "resources/read", { uri: "https://many.example/docs/page-003" }));
    expect(modernRead.result.contents).toEqual([
      { uri: "https://many.example/docs/page-003", mimeType: "text/markdown", text: "# Page 3\n\nText of page 3.", _meta: { title: "Page 3", name: "documents/many.example/docs/page-003" } },
    ]);
    const session = await openSession();
    const legacyRead = await one(await post({ jsonrpc: "2.0", id: 1, method: "resources/read", params: { uri: "https://many.example/docs/page-003" } }, session));
    expect(legacyRead.result.contents).toEqual(modernRead.result.contents);
  });

  it("answers an unknown uri with -32602 and the uri in data (SEP-2164)", async () => {
    const body = await one(await modern(4, "resources/read", { uri: "https://many.example/docs/missing" }));
    expect(body).toMatchObject({ id: 4, error: { code: -32602, data: { uri: "https://many.example/docs/missing", status: "NOT_FOUND" } } });
  });

  it("completes the template's path from stored names by prefix", async () => {
    const ref = { type: "ref/resource", uri: "https://{+path}" };
    const few = await one(await modern(1, "completion/complete", { ref, argument: { name: "path", value: "many.example/docs/page-10" } }));
    expect(few.result.completion).toEqual({
      values: ["many.example/docs/page-100", "many.example/docs/page-101", "many.example/docs/page-102", "many.example/docs/page-103", "many.example/docs/page-104", "many.example/docs/page-105", "many.example/docs/page-106"],
      total: 7,
      hasMore: false,
    });
    const many = await one(await modern(1, "completion/complete", { ref, argument: { name: "path", value: "many.example/" } }));
    expect(many.result.completion.values).toHaveLength(100);
    expect(many.result.completion.hasMore).toBe(true);
  });
});
