// Versions over every door: both MCP eras (a 2025-era SDK session that checks
// each result against the tool's outputSchema, and raw 2026-07-28 requests)
// and the REST facade. v2 of the fixture site is current; v1 disagrees.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { prepareSite, siteFor } from "../../src/documents/ingest/prepare-pages.ts";
import { syncDocuments } from "../../src/documents/ingest/write-corpus.ts";
import { createApiKey } from "../../src/auth/key-store.ts";
import { messages, post } from "../support/mcp-http.ts";
import { answerQuery, restJson } from "../support/rest.ts";
import { callTool, connectClient, resultText } from "../support/mcp-connect.ts";
import { getPage } from "../support/landing-page.ts";

const files = import.meta.glob<string>("../fixtures/versions/v*/*.md", { query: "?raw", import: "default", eager: true });
const QUESTION = "What is the default build timeout of bundlr?";

// Tests read deep into JSON-RPC bodies; `any` keeps each expectation one line.
type Json = any;

async function modernCall(id: number, name: string, args: Record<string, unknown>): Promise<Json> {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "versions-test", version: "1" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  const response = await post(
    { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args, _meta: meta } },
    { "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": name },
  );
  const [message] = await messages(response);
  return (message as Json).result;
}

let keyed: Record<string, string>;

beforeAll(async () => {
  for (const label of ["v1", "v2"] as const) {
    const site = siteFor(`https://bundlr.example/${label}`, undefined, { label, current: false });
    const prefix = `../fixtures/versions/${label}/`;
    const folder = Object.entries(files).filter(([path]) => path.startsWith(prefix)).map(([path, text]) => ({ path: path.slice(prefix.length), text }));
    await syncDocuments(env.DB, site, (await prepareSite(folder, site)).documents, { prune: false });
  }
  keyed = { "X-Goog-Api-Key": (await createApiKey(env.DB, { label: "versions", answerPerMinute: 100 })).key };
});

describe("a 2025-era session", () => {
  it("searches the current version, names it in structuredContent and the text, and picks v1 by filter", async () => {
    const client = await connectClient();
    const current = await callTool(client, "search_documents", { query: "output directory option" });
    const hits = (current.structuredContent as Json).results;
    expect(hits[0].document).toMatchObject({ name: "documents/bundlr.example/v2/build", version: "v2" });
    expect(hits.every((hit: Json) => hit.document.version === "v2")).toBe(true);
    expect(resultText(current)).toContain("- version: v2 (bundlr.example)");
    const old = await callTool(client, "search_documents", { query: "output directory option", filter: 'version = "v1"' });
    expect((old.structuredContent as Json).results.every((hit: Json) => hit.document.version === "v1")).toBe(true);
    expect(resultText(old)).toContain("--output-dir dist");
    await client.close();
  });

  it("answers from the current version and says so, or from v1 when asked", async () => {
    const client = await connectClient();
    const answer = await callTool(client, "answer_query", { query: QUESTION });
    expect((answer.structuredContent as Json).answerText).toContain("120 seconds");
    expect((answer.structuredContent as Json).referenceVersions.every((version: string) => version === "v2")).toBe(true);
    expect(resultText(answer)).toMatch(/1\. documents\/bundlr\.example\/v2\/build \(version v2\)/);
    const old = await callTool(client, "answer_query", { query: QUESTION, filter: 'version = "v1"' });
    expect((old.structuredContent as Json).answerText).toContain("30 seconds");
    await client.close();
  });

  it("lists the current version's pages as resources and reads an old one by its uri", async () => {
    const client = await connectClient();
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri)).toContain("https://bundlr.example/v2/build");
    expect(resources.map((resource) => resource.uri)).not.toContain("https://bundlr.example/v1/build");
    const read = await client.readResource({ uri: "https://bundlr.example/v1/build" });
    expect((read.contents[0] as Json).text).toContain("--output-dir dist");
    await client.close();
  });

  it("refuses a malformed version restriction with a clear message", async () => {
    const client = await connectClient();
    const result = await callTool(client, "search_documents", { query: "build", filter: 'version != "*"' });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toContain('version != "*" at position 1 matches nothing; write version = "*" for every version');
    await client.close();
  });
});

describe("a 2026-07-28 request", () => {
  it("sees the current version by default and v1 by filter", async () => {
    const current = await modernCall(1, "search_documents", { query: "output directory option" });
    expect(current.structuredContent.results[0].document.version).toBe("v2");
    const old = await modernCall(2, "answer_query", { query: QUESTION, filter: 'version = "v1"' });
    expect(old.structuredContent.answerText).toContain("30 seconds");
    expect(old.structuredContent.references.every((name: string) => name.startsWith("documents/bundlr.example/v1/"))).toBe(true);
  });
});

describe("the REST facade", () => {
  it("searches the current version, with version as an extension field of the document, and v1 by filter", async () => {
    const { status, body } = await restJson<Json>("/v1/documents:searchDocumentChunks?query=output%20directory%20option");
    expect(status).toBe(200);
    expect(body.results[0].document).toMatchObject({ name: "documents/bundlr.example/v2/build", dataSource: "bundlr.example", version: "v2" });
    const old = await restJson<Json>(`/v1/documents:searchDocumentChunks?query=output%20directory%20option&filter=${encodeURIComponent('version = "v1"')}`);
    expect(old.body.results.every((hit: Json) => hit.document.version === "v1")).toBe(true);
  });

  it("answers from one version: v2 by default, v1 when asked", async () => {
    const current = (await (await answerQuery({ query: QUESTION }, keyed)).json()) as Json;
    expect(current.answer.answerText).toContain("120 seconds");
    expect(current.answer.references.every((ref: Json) => ref.documentReference.documentChunk.document.version === "v2")).toBe(true);
    const old = (await (await answerQuery({ query: QUESTION, filter: 'version = "v1"' }, keyed)).json()) as Json;
    expect(old.answer.answerText).toContain("30 seconds");
    expect(old.answer.references.every((ref: Json) => ref.documentReference.documentChunk.document.version === "v1")).toBe(true);
  });

  it("gets an old version's page by name", async () => {
    const { status, body } = await restJson<Json>("/v1/documents/bundlr.example/v1/build");
    expect(status).toBe(200);
    expect(body).toMatchObject({ name: "documents/bundlr.example/v1/build", version: "v1" });
  });
});

describe("what people see", () => {
  it("lists the data source's versions on the landing page, the current one marked", async () => {
    const { html } = await getPage("/");
    expect(html).toContain("versions:");
    expect(html).toMatch(/v1, <strong>v2 \(current\)<\/strong>/);
  });

  it("names the versions in /llms.txt", async () => {
    const { html: text } = await getPage("/llms.txt");
    expect(text).toContain('## bundlr.example\n\nVersions: v1, v2 (current). Search and answers see the current one; a filter picks another, e.g. version = "v1".');
  });
});
