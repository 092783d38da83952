// The two doors of one server agree: the MCP SDK client and Google's REST
// client get the same chunks in the same order, the same pages, and the same
// answers with the same references and citations.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { google, type developerknowledge_v1 } from "googleapis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

const serverUrl = inject("serverUrl");

interface McpSearch {
  results: { parent: string; id: string; content: string; document: { title: string; uri: string; updateTime: string }; relevanceScore: number }[];
  nextPageToken?: string;
}
interface McpAnswer {
  answerText: string;
  references: string[];
  citations: { startIndex: number; endIndex: number; sources: { referenceIndex: number }[] }[];
}

let mcp: Client;
let rest: developerknowledge_v1.Developerknowledge;

beforeAll(async () => {
  const key = inject("sharedKeys")["agreement-e2e"];
  mcp = new Client({ name: "agreement-e2e", version: "1.0.0" });
  await mcp.connect(new StreamableHTTPClientTransport(new URL("/mcp", serverUrl), { requestInit: { headers: { "X-Goog-Api-Key": key } } }));
  rest = google.developerknowledge({ version: "v1", rootUrl: `${serverUrl}/`, auth: key });
});

afterAll(async () => {
  await mcp.close();
});

async function mcpCall<T>(name: string, args: Record<string, unknown>): Promise<T> {
  const result = await mcp.callTool({ name, arguments: args });
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return result.structuredContent as T;
}

const QUERIES = ["connect Claude Desktop", "How is the answer_query quota counted?", "filter by update_time", "ingest MDX pages"];

describe("MCP and REST on one server", () => {
  it.each(QUERIES)("search %j: the same chunks in the same order, page after page", async (query) => {
    let mcpToken: string | undefined;
    let restToken: string | undefined;
    for (let page = 0; page < 3; page += 1) {
      const fromMcp = await mcpCall<McpSearch>("search_documents", { query, pageSize: 4, ...(mcpToken ? { pageToken: mcpToken } : {}) });
      const fromRest = (await rest.documents.searchDocumentChunks({ query, pageSize: 4, ...(restToken ? { pageToken: restToken } : {}) })).data;
      expect(fromRest.results?.map((hit) => [hit.parent, hit.id, hit.content, hit.relevanceScore])).toEqual(fromMcp.results.map((hit) => [hit.parent, hit.id, hit.content, hit.relevanceScore]));
      expect(fromRest.results?.map((hit) => [hit.document?.title, hit.document?.uri, hit.document?.updateTime])).toEqual(
        fromMcp.results.map((hit) => [hit.document.title, hit.document.uri, hit.document.updateTime]),
      );
      expect(fromRest.nextPageToken).toBe(fromMcp.nextPageToken);
      mcpToken = fromMcp.nextPageToken;
      restToken = fromRest.nextPageToken ?? undefined;
      if (!mcpToken) break;
    }
  });

  it("get: the same Markdown for the pages search points to (MCP's whole pages; longer ones it reads in parts)", async () => {
    const { results } = await mcpCall<McpSearch>("search_documents", { query: "API keys", pageSize: 5 });
    const names = [...new Set(results.map((hit) => hit.parent))];
    const fromRest = (await rest.documents.batchGet({ names })).data;
    expect(fromRest.documents?.map((document) => document.name)).toEqual(names);
    let compared = 0;
    for (const [index, name] of names.entries()) {
      const [page] = (await mcpCall<{ documents: { content: string; title: string; truncated?: boolean }[] }>("get_documents", { names: [name] })).documents;
      if (page?.truncated) continue;
      expect([fromRest.documents?.[index]?.title, fromRest.documents?.[index]?.content]).toEqual([page?.title, page?.content]);
      compared += 1;
    }
    expect(compared).toBeGreaterThan(0);
  });

  it.each(["How is the answer_query quota counted?", "What is the difference between search_documents and answer_query?", "How do I connect Cursor?"])(
    "answer %j: the same text, references and citations",
    async (query) => {
      const fromMcp = await mcpCall<McpAnswer>("answer_query", { query });
      const answer = (await rest.v1.answerQuery({ requestBody: { query } })).data.answer;
      expect(answer?.answerText).toBe(fromMcp.answerText);
      expect(answer?.references?.map((reference) => reference.documentReference?.documentChunk?.parent)).toEqual(fromMcp.references);
      // proto3 JSON leaves zeros out: a citation at byte 0 has no startIndex, a source of reference 0 no referenceIndex.
      expect(
        answer?.citations?.map((citation) => ({
          startIndex: citation.startIndex ?? 0,
          endIndex: citation.endIndex,
          sources: citation.sources?.map((source) => ({ referenceIndex: source.referenceIndex ?? 0 })),
        })),
      ).toEqual(fromMcp.citations);
    },
  );
});
