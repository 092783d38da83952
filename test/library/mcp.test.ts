// The query-library tools through a real MCP SDK Client talking to the Worker
// (exports.default.fetch), so schemas, outputSchema validation and error
// mapping are exercised as a client sees them.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { env } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findStoredEntry } from "../../src/library/store.ts";
import { callTool, connectClient, resultText } from "../support/mcp-connect.ts";
import { loadDefaultLibrary, loadStackqlLibrary } from "../support/library-fixtures.ts";
import { quoted } from "../../src/text/quote.ts";

let client: Client;

beforeAll(async () => {
  await loadDefaultLibrary();
  await loadStackqlLibrary();
  client = await connectClient();
});

afterAll(async () => {
  await client.close();
});

const call = (name: string, args: Record<string, unknown>): Promise<CallToolResult> => callTool(client, name, args);
const text = resultText;

describe("tools/list", () => {
  it("lists both library tools, read-only, with output schemas", async () => {
    const { tools } = await client.listTools();
    for (const name of ["query_library_search", "query_library_get"]) {
      const tool = tools.find((candidate) => candidate.name === name);
      expect(tool?.title).toBeTruthy();
      expect(tool?.outputSchema).toBeDefined();
      expect(tool?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    }
    const get = tools.find((tool) => tool.name === "query_library_get");
    expect(get?.description).toContain("next_tool");
    expect(get?.description).toContain("never executes SQL");
  });
});

describe("the agent's workflow: search, get, render", () => {
  it("finds aws/s3/buckets-list first for 'list all s3 buckets'", async () => {
    const result = await call("query_library_search", { intent: "list all s3 buckets" });
    expect(result.isError).toBeFalsy();
    const structured = result.structuredContent as { hits: { id: string; score: number }[]; miss: boolean; source_tier: string };
    expect(structured.hits[0]).toMatchObject({ id: "aws/s3/buckets-list", score: 37.5 });
    expect(structured.miss).toBe(false);
    expect(structured.source_tier).toBe("primary");
    expect(text(result).split("\n").slice(0, 3)).toEqual([
      "| id | mutation | required_params | score | title |",
      "| --- | --- | --- | --- | --- |",
      "| aws/s3/buckets-list | false | region | 37.5 | S3 buckets cheap enumeration |",
    ]);
  });

  it("shows the entry, then renders it with region filled in", async () => {
    const teaching = await call("query_library_get", { id: "aws/s3/buckets-list" });
    expect(teaching.structuredContent).toMatchObject({
      rendered: false,
      valid: false,
      template: "SELECT bucket_name, region FROM aws.s3.buckets_list_only WHERE region = '{{region}}';",
      params: [{ name: "region", type: "identifier", required: true }],
    });

    const rendered = await call("query_library_get", { id: "aws/s3/buckets-list", params: { region: "us-east-1" } });
    expect(rendered.structuredContent).toMatchObject({
      rendered: true,
      valid: true,
      sql: "SELECT bucket_name, region FROM aws.s3.buckets_list_only WHERE region = 'us-east-1';",
      next_tool: "run_select_query",
      errors: [],
    });
    expect(text(rendered)).toMatchInlineSnapshot(`
      "## Query Library Entry

      doc_url: https://stackql.io/docs/query-library/queries/aws/s3/buckets-list
      id: aws/s3/buckets-list
      mutation: false
      next_tool: run_select_query
      source: primary
      sql:
      \`\`\`sql
      SELECT bucket_name, region FROM aws.s3.buckets_list_only WHERE region = 'us-east-1';
      \`\`\`
      valid: true"
    `);
  });

  it("returns parameter problems as a normal result, not a tool error", async () => {
    const result = await call("query_library_get", { id: "aws/s3/buckets-list", params: { region: "us east 1", bucket: "x" } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ valid: false, unknown_params: ["bucket"] });
    expect((result.structuredContent as { sql?: string }).sql).toBeUndefined();
  });

  it("gives the JSON itself as text with format json", async () => {
    const result = await call("query_library_get", { id: "aws/s3/buckets-list", format: "json" });
    expect(JSON.parse(text(result))).toEqual(result.structuredContent);
  });
});

describe("errors a model sees", () => {
  it.each([
    ["query_library_get", { id: "AWS/S3" }, 'INVALID_ARGUMENT: invalid query id "AWS/S3"'],
    ["query_library_get", { id: "aws/s3/nope" }, 'NOT_FOUND: unknown query id "aws/s3/nope"; use query_library_search to find valid ids'],
    ["query_library_get", { id: "aws/s3/buckets-list", format: "yaml" }, 'INVALID_ARGUMENT: invalid format "yaml" (legal: markdown, json)'],
    ["query_library_search", { intent: "buckets", format: "html" }, 'INVALID_ARGUMENT: invalid format "html" (legal: markdown, json)'],
  ])("%s %j", async (name, args, message) => {
    const result = await call(name, args);
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(message);
  });

  it("answers an over-long id with SPEC's id messages, quoting only its first 200 characters, never the schema's length error", async () => {
    const malformed = `AWS/${"x".repeat(5000)}`;
    const invalid = await call("query_library_get", { id: malformed });
    expect(invalid.isError).toBe(true);
    expect(text(invalid)).toBe(`INVALID_ARGUMENT: invalid query id "${quoted(malformed)}"`);
    const wellFormed = `aws/s3/${"x".repeat(5000)}`;
    const unknown = await call("query_library_get", { id: wellFormed });
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toBe(`NOT_FOUND: unknown query id "${quoted(wellFormed)}"; use query_library_search to find valid ids`);
  });

  it("refuses a limit above 20", async () => {
    const result = await call("query_library_search", { intent: "buckets", limit: 21 });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("limit must be at most 20");
  });
});

describe("the bundled snapshot", () => {
  it("answers for a default-library entry whose KV body cannot be read", async () => {
    const stored = await findStoredEntry(env.DB, "github/repos/repos-by-org");
    expect(stored?.bodyKey).toMatch(/^library\/github\/repos\/repos-by-org@/);
    await env.TEMPLATES.put(stored?.bodyKey ?? "", "{ not json");
    const result = await call("query_library_get", { id: "github/repos/repos-by-org", params: { org: "stackql" } });
    expect(result.structuredContent).toMatchObject({ source_tier: "snapshot", stale: true, valid: true });
    expect(text(result)).toContain("source: snapshot (stale)");
  });
});
