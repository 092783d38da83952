// The MCP endpoint of the real dev server, driven by the MCP SDK's own client.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

const serverUrl = inject("serverUrl");
const mcpUrl = new URL("/mcp", serverUrl);

let client: Client;

beforeAll(async () => {
  client = new Client({ name: "almanac-e2e", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl));
});

afterAll(async () => {
  await client.close();
});

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function text(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === "text" ? first.text : "";
}

describe("initialize and tools/list", () => {
  it("reports the server and teaches the workflow in its instructions", () => {
    expect(client.getServerVersion()?.name).toBe("almanac");
    const instructions = client.getInstructions() ?? "";
    expect(instructions).toContain("search_documents");
    expect(instructions).toContain("429");
    expect(instructions).toContain("next_tool");
  });

  it("lists the Developer Knowledge tools with output schemas and read-only annotations", async () => {
    const { tools } = await client.listTools();
    for (const name of ["search_documents", "get_documents", "answer_query"]) {
      const tool = tools.find((candidate) => candidate.name === name);
      expect(tool, name).toBeDefined();
      expect(tool?.outputSchema?.type).toBe("object");
      expect(tool?.title).toBeTruthy();
      expect(tool?.annotations).toMatchObject({
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      });
    }
    const search = tools.find((tool) => tool.name === "search_documents");
    expect(search?.inputSchema.required).toEqual(["query"]);
  });
});

describe("search_documents", () => {
  it("puts the obviously right page first for a clear query", async () => {
    const result = await call("search_documents", { query: "connect Claude Desktop" });
    expect(result.isError).toBeFalsy();
    const { results } = result.structuredContent as { results: { parent: string; document: { uri: string } }[] };
    expect(results[0]?.parent).toBe("documents/almanac.dev/docs/clients/claude-desktop");
    expect(text(result)).toContain("parent: documents/almanac.dev/docs/clients/claude-desktop");
  });

  it("pages with nextPageToken without repeating results", async () => {
    const first = await call("search_documents", { query: "answer_query quota", pageSize: 2 });
    const page1 = first.structuredContent as { results: { parent: string; id: string }[]; nextPageToken?: string };
    expect(page1.results).toHaveLength(2);
    expect(page1.nextPageToken).toBeTruthy();
    const second = await call("search_documents", { query: "answer_query quota", pageSize: 2, pageToken: page1.nextPageToken });
    const page2 = second.structuredContent as { results: { parent: string; id: string }[] };
    const key = (hit: { parent: string; id: string }) => `${hit.parent}#${hit.id}`;
    expect(page2.results.map(key)).not.toContain(key(page1.results[0] as { parent: string; id: string }));
  });

  it.each(['"foo* AND (bar NEAR -x:y', "NOT", "🙂🙂", "データベース", "' OR 1=1 --", "(((", "a:b:c"])(
    "treats hostile text %s as words, never as an error",
    async (query) => {
      const result = await call("search_documents", { query });
      expect(result.isError).toBeFalsy();
      expect(Array.isArray((result.structuredContent as { results: unknown[] }).results)).toBe(true);
    },
  );

  it("answers no hits with an empty list and a hint to rephrase", async () => {
    const result = await call("search_documents", { query: "xylophonequartz" });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ results: [] });
    expect(text(result)).toContain("Rephrase");
  });

  it("refuses an empty query, an oversized pageSize and an unknown argument with INVALID_ARGUMENT", async () => {
    for (const args of [{ query: "" }, { query: "x".repeat(501) }, { query: "quota", pageSize: 21 }, { query: "quota", filters: "x" }]) {
      const result = await call("search_documents", args);
      expect(result.isError, JSON.stringify(args).slice(0, 60)).toBe(true);
      expect(text(result)).toMatch(/^INVALID_ARGUMENT: /);
    }
  });

  it("refuses a filter it cannot parse with INVALID_ARGUMENT naming the problem", async () => {
    const result = await call("search_documents", { query: "quota", filter: 'title = "x"' });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^INVALID_ARGUMENT: filter: unknown field "title"/);
  });

  it("applies a filter", async () => {
    const result = await call("search_documents", { query: "quota", filter: 'data_source = "nowhere.example"' });
    expect(result.structuredContent).toEqual({ results: [] });
  });
});

describe("get_documents", () => {
  const page = (path: string) => `documents/almanac.dev/docs/${path}`;

  it("returns whole pages in the order asked, repeats included", async () => {
    const names = [page("troubleshooting"), page("getting-started"), page("troubleshooting")];
    const result = await call("get_documents", { names });
    expect(result.isError).toBeFalsy();
    const { documents } = result.structuredContent as { documents: { name: string; uri: string; content: string }[] };
    expect(documents.map((doc) => doc.name)).toEqual(names);
    expect(documents[1]?.uri).toBe("https://almanac.dev/docs/getting-started");
    expect(documents[1]?.content).toContain("npm start");
  });

  it("fails with NOT_FOUND listing every missing name", async () => {
    const result = await call("get_documents", { names: [page("getting-started"), page("nope-1"), page("nope-2")] });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^NOT_FOUND: /);
    expect(text(result)).toContain(page("nope-1"));
    expect(text(result)).toContain(page("nope-2"));
    expect(text(result)).toContain("search_documents");
  });

  it("refuses 21 names, no names and a malformed name with INVALID_ARGUMENT", async () => {
    for (const names of [Array.from({ length: 21 }, () => page("index")), [], ["getting-started"]]) {
      const result = await call("get_documents", { names });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/^INVALID_ARGUMENT: /);
    }
  });
});

describe("answer_query", () => {
  it("answers with sentences from the documentation and cites them", async () => {
    const result = await call("answer_query", { query: "Which tools consume the answer_query quota?" });
    expect(result.isError).toBeFalsy();
    const answer = result.structuredContent as {
      answerText: string;
      references: string[];
      citations: { startIndex: number; endIndex: number; sources: { referenceIndex: number }[] }[];
    };
    expect(answer.answerText).toContain("`answer_query` consumes the answer quota");
    expect(answer.references.length).toBeGreaterThan(0);
    const bytes = new TextEncoder().encode(answer.answerText);
    for (const citation of answer.citations) {
      expect(citation.endIndex).toBeLessThanOrEqual(bytes.length);
      expect(answer.references[citation.sources[0]?.referenceIndex ?? -1]).toBeDefined();
    }
    expect(text(result)).toContain("References");
  });

  it("says honestly when nothing grounds an answer", async () => {
    const result = await call("answer_query", { query: "xylophonequartz zanzibar" });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ references: [], citations: [] });
    expect((result.structuredContent as { answerText: string }).answerText).toMatch(/^No grounded answer/);
  });
});

describe("the HTTP transport", () => {
  const initialize = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "curl", version: "1" } },
  };
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };

  it("answers 404 for an unknown session id, so clients start a new session", async () => {
    const response = await fetch(mcpUrl, {
      method: "POST",
      headers: { ...headers, "mcp-session-id": "no-such-session", "mcp-protocol-version": "2025-06-18" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }),
    });
    expect(response.status).toBe(404);
  });

  it("refuses a foreign browser origin with 403 and accepts its own", async () => {
    const foreign = await fetch(mcpUrl, { method: "POST", headers: { ...headers, origin: "https://evil.example" }, body: JSON.stringify(initialize) });
    expect(foreign.status).toBe(403);
    expect(await foreign.text()).toContain("ALLOWED_ORIGINS");
    const own = await fetch(mcpUrl, { method: "POST", headers: { ...headers, origin: mcpUrl.origin }, body: JSON.stringify(initialize) });
    expect(own.status).toBe(200);
    await own.body?.cancel();
  });

  it("serves /healthz with the corpus size and a landing page", async () => {
    const health = (await (await fetch(new URL("/healthz", serverUrl))).json()) as { status: string; documents: number };
    expect(health.status).toBe("ok");
    expect(health.documents).toBeGreaterThanOrEqual(15);
    const landing = await (await fetch(serverUrl)).text();
    expect(landing).toContain(`${mcpUrl.href}`);
  });
});
