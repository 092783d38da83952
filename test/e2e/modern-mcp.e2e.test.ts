// MCP 2026-07-28 on the real dev server, driven by the v2 SDK client: pinned to
// the revision and in `auto` mode, both must negotiate it (no initialize, no
// session) and reach every tool and the documents as resources. The same
// server still gives a v1 (2025-era) client its Durable Object session.
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as LegacyTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

const mcpUrl = new URL("/mcp", inject("serverUrl"));
const MODERN = "2026-07-28";

async function connectModern(mode: "auto" | { pin: string }): Promise<ModernClient> {
  const client = new ModernClient({ name: "almanac-e2e-modern", version: "1.0.0" }, { versionNegotiation: { mode } });
  await client.connect(new ModernTransport(mcpUrl));
  return client;
}

type TextResult = { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: unknown };

function text(result: TextResult): string {
  return result.content[0]?.text ?? "";
}

describe.each([
  ["pinned to 2026-07-28", { pin: MODERN }],
  ["in auto mode", "auto"],
] as const)("a v2 client %s", (_mode, mode) => {
  let client: ModernClient;

  beforeAll(async () => {
    client = await connectModern(mode);
  });

  afterAll(async () => {
    await client.close();
  });

  it("negotiates 2026-07-28 through server/discover and reads the instructions", () => {
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    expect(client.getServerVersion()?.name).toBe("almanac");
    expect(client.getInstructions()).toContain("search_documents");
    expect(client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {}, completions: {} });
  });

  it("calls all five tools and gets the same results shapes as a 2025 session", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["search_documents", "get_documents", "answer_query", "query_library_search", "query_library_get", "test_error_handling"]);

    const search = (await client.callTool({ name: "search_documents", arguments: { query: "revoke an API key", pageSize: 3 } })) as TextResult;
    const parent = (search.structuredContent as { results: { parent: string }[] }).results[0]?.parent ?? "";
    expect(parent).toBe("documents/almanac.dev/docs/api-keys-and-quotas");

    const get = (await client.callTool({ name: "get_documents", arguments: { names: [parent] } })) as TextResult;
    expect((get.structuredContent as { documents: { name: string }[] }).documents[0]?.name).toBe(parent);

    const answer = (await client.callTool({ name: "answer_query", arguments: { query: "How do I revoke an API key?" } })) as TextResult;
    expect((answer.structuredContent as { references: string[] }).references).toContain(parent);

    const entries = (await client.callTool({ name: "query_library_search", arguments: { intent: "list EC2 instances in a region" } })) as TextResult;
    const first = (entries.structuredContent as { hits: { id: string }[] }).hits[0]?.id ?? "";
    expect(first).toBeTruthy();
    const entry = (await client.callTool({ name: "query_library_get", arguments: { id: first } })) as TextResult;
    expect(entry.isError, text(entry)).toBeFalsy();
  });

  it("reports argument errors as INVALID_ARGUMENT results and unknown tools as NOT_FOUND", async () => {
    const bad = (await client.callTool({ name: "search_documents", arguments: { query: "x", pageSize: 99 } })) as TextResult;
    expect(bad.isError).toBe(true);
    expect(text(bad)).toBe("INVALID_ARGUMENT: pageSize must be at most 20");
    await expect(client.callTool({ name: "rm_rf", arguments: {} })).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/^NOT_FOUND: no tool named "rm_rf"/) });
  });

  it("lists, reads and completes documents as resources", async () => {
    const { resources } = await client.listResources();
    const overview = resources.find((resource) => resource.uri === "https://almanac.dev/docs");
    expect(overview).toMatchObject({ name: "documents/almanac.dev/docs", mimeType: "text/markdown", title: "Almanac overview and MCP tools" });

    const read = await client.readResource({ uri: "https://almanac.dev/docs/filters" });
    expect(read.contents[0]).toMatchObject({ uri: "https://almanac.dev/docs/filters", mimeType: "text/markdown" });

    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual(["https://{+path}"]);
    const completion = await client.complete({ ref: { type: "ref/resource", uri: "https://{+path}" }, argument: { name: "path", value: "almanac.dev/docs/cl" } });
    expect(completion.completion.values).toContain("almanac.dev/docs/clients/claude-desktop");

    await expect(client.readResource({ uri: "https://almanac.dev/docs/nope" })).rejects.toMatchObject({ code: -32602, data: { uri: "https://almanac.dev/docs/nope" } });
  });
});

describe("the same URL for a 2025-era client", () => {
  it("gives a v1 client a session with the same tools and resources", async () => {
    const client = new LegacyClient({ name: "almanac-e2e-legacy", version: "1.0.0" });
    const transport = new LegacyTransport(mcpUrl);
    await client.connect(transport);
    try {
      expect(transport.sessionId).toBeTruthy();
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain("answer_query");
      const read = await client.readResource({ uri: "https://almanac.dev/docs/filters" });
      expect(read.contents[0]?.mimeType).toBe("text/markdown");
      const completion = await client.complete({ ref: { type: "ref/resource", uri: "https://{+path}" }, argument: { name: "path", value: "almanac.dev/docs/cl" } });
      expect(completion.completion.values).toContain("almanac.dev/docs/clients/claude-desktop");
    } finally {
      await client.close();
    }
  });

  it("lists the same tools, byte for byte, in both eras", async () => {
    const modern = await connectModern({ pin: MODERN });
    const legacy = new LegacyClient({ name: "almanac-e2e-legacy", version: "1.0.0" });
    await legacy.connect(new LegacyTransport(mcpUrl));
    try {
      expect(JSON.stringify((await legacy.listTools()).tools)).toBe(JSON.stringify((await modern.listTools()).tools));
    } finally {
      await Promise.all([modern.close(), legacy.close()]);
    }
  });
});
