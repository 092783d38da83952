// The MCP contract of the document tools, through a real client that checks
// every structured result against the advertised outputSchema.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { corpusName, loadCorpus } from "../support/corpus.ts";
import { callTool, connectClient, resultText } from "../support/mcp-connect.ts";

let client: Client;

beforeAll(async () => {
  await loadCorpus();
  client = await connectClient();
});

afterAll(async () => {
  await client.close();
});

describe("tools/list", () => {
  it("describes each document tool for the model, with schemas and annotations", async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get("search_documents")?.description).toContain("parent");
    expect(byName.get("get_documents")?.description).toContain("at most 20");
    expect(byName.get("answer_query")?.description).toMatch(/429.*search_documents/);
    expect(byName.get("search_documents")?.inputSchema.properties?.pageSize).toMatchObject({ minimum: 1, maximum: 20 });
    expect(byName.get("get_documents")?.inputSchema.properties?.names).toMatchObject({ minItems: 1, maxItems: 20 });
    expect(byName.has("test_error_handling")).toBe(false);
  });
});

describe("tools/call", () => {
  it("returns structuredContent that satisfies the outputSchema, plus Markdown text", async () => {
    const search = await callTool(client, "search_documents", { query: "revoke an API key", pageSize: 3 });
    expect(search.isError).toBeFalsy();
    expect(resultText(search)).toMatch(/^## 1\. /);
    const parent = (search.structuredContent as { results: { parent: string }[] }).results[0]?.parent ?? "";
    const get = await callTool(client, "get_documents", { names: [parent] });
    expect((get.structuredContent as { documents: { name: string }[] }).documents[0]?.name).toBe(parent);
    const answer = await callTool(client, "answer_query", { query: "How do I revoke an API key?" });
    expect((answer.structuredContent as { references: string[] }).references.length).toBeGreaterThan(0);
    expect(resultText(answer)).toMatch(/\[1\]/);
  });

  it("shows the model the exact error text for a missing page", async () => {
    const result = await callTool(client, "get_documents", { names: [corpusName("missing-page")] });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatchInlineSnapshot(
      `"NOT_FOUND: no document named "documents/almanac.dev/docs/missing-page"; use search_documents to find valid names (the parent field of each result)"`,
    );
  });

  it("refuses 21 names and an empty list with the limit in the message", async () => {
    const tooMany = await callTool(client, "get_documents", { names: Array.from({ length: 21 }, () => corpusName("filters")) });
    expect(resultText(tooMany)).toMatchInlineSnapshot(`"INVALID_ARGUMENT: names may list at most 20 documents per call; split the request"`);
    const none = await callTool(client, "get_documents", { names: [] });
    expect(resultText(none)).toMatchInlineSnapshot(`"INVALID_ARGUMENT: names must list at least one document name, e.g. a parent from search_documents"`);
  });

  it("names the field and the limit when an argument is out of range", async () => {
    const result = await callTool(client, "search_documents", { query: "quota", pageSize: 0 });
    expect(resultText(result)).toMatchInlineSnapshot(`"INVALID_ARGUMENT: pageSize must be at least 1"`);
  });
});
