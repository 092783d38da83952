// An agent's path through a 200 KB page over MCP: search, read the section a hit links to, then
// follow the continuation names through the whole page. No result passes the budget; no text is lost.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_RESULT_BUDGET_CHARS } from "../../src/config.ts";
import { env } from "cloudflare:test";
import { prepareSite, siteFor, type PreparedDocument } from "../../src/documents/ingest/prepare-pages.ts";
import { syncDocuments } from "../../src/documents/ingest/write-corpus.ts";
import { corpusName, loadCorpus } from "../support/corpus.ts";
import { LONG_PAGE, loadLongPage } from "../support/long-pages.ts";
import { textWriter } from "../../src/tools/library-fields.ts";
import { callTool, connectClient, resultText } from "../support/mcp-connect.ts";
import { createApiKey } from "../../src/auth/key-store.ts";

let client: Client;
let long: PreparedDocument;

beforeAll(async () => {
  await loadCorpus();
  long = await loadLongPage();
  // An agent walking a long page reads faster than the public tier's gets per minute allow: it has a key with room.
  const { key } = await createApiKey(env.DB, { label: "result-budget", getPerMinute: 10_000, searchPerMinute: 10_000 });
  client = await connectClient({ "X-Goog-Api-Key": key });
});

afterAll(async () => {
  await client.close();
});

interface Entry {
  name: string;
  content: string;
  truncated?: boolean;
  next?: string;
  section?: { anchor: string; headingPath: string[] };
}

async function getDocuments(names: string[]): Promise<{ text: string; documents: Entry[] }> {
  const result = await callTool(client, "get_documents", { names });
  expect(result.isError).toBeFalsy();
  const text = resultText(result);
  expect(text.length).toBeLessThanOrEqual(DEFAULT_RESULT_BUDGET_CHARS);
  return { text, documents: (result.structuredContent as { documents: Entry[] }).documents };
}

describe("results within the budget", () => {
  it("reads a 200 KB page through its continuation names, exactly once", async () => {
    const parts: string[] = [];
    let next: string | undefined = LONG_PAGE;
    let calls = 0;
    while (next) {
      const { text, documents } = await getDocuments([next]);
      const [entry] = documents;
      parts.push(entry?.content ?? "");
      if (entry?.next) expect(text).toContain(`get_documents {"names": ["${entry.next}"]}`);
      next = entry?.next;
      calls += 1;
    }
    expect(calls).toBeGreaterThan(10);
    expect(parts.join("")).toBe(long.content);
  });

  it("shows a long page's outline with the names that fetch each section", async () => {
    const { text } = await getDocuments([LONG_PAGE]);
    expect(text).toMatch(/Outline:\n- Handbook, round 1: documents\/long\.example\.com\/handbook#handbook-round-1/);
  });

  it("reads the section a search result links to, with its heading path", async () => {
    const search = await callTool(client, "search_documents", { query: "claude_desktop_config.json mcp-remote", pageSize: 20 });
    expect(resultText(search).length).toBeLessThanOrEqual(DEFAULT_RESULT_BUDGET_CHARS);
    const hit = (search.structuredContent as { results: { parent: string; id: string }[] }).results.find((result) => result.parent === LONG_PAGE);
    expect(hit).toBeDefined();
    const { documents } = await getDocuments([`${hit?.parent}#${hit?.id}`]);
    expect(documents[0]?.section?.headingPath.length).toBeGreaterThan(0);
    expect(long.content).toContain(documents[0]?.content);
  });

  it("keeps twenty long pages in one call under the budget, each with its first text and a next that reads on", async () => {
    const { documents } = await getDocuments([corpusName("filters"), ...Array.from({ length: 19 }, () => LONG_PAGE)]);
    expect(documents[0]?.content.length).toBeGreaterThan(0);
    for (const doc of documents.slice(1)) {
      expect(doc.content.length).toBeGreaterThan(0);
      expect(long.content.startsWith(doc.content)).toBe(true);
      expect(doc.next).toBe(`${LONG_PAGE}#@${doc.content.length}`);
    }
  });

  // Regression (issue 24): a page of one 5.5 MB line came back whole from get_documents, an 11 MB result.
  it("keeps a page of one very long line under the budget, in parts that give the page back", async () => {
    const line = "word ".repeat(120_000);
    const { documents: [page] } = await prepareSite([{ path: "line.md", text: `---\ntitle: Line\n---\n${line}` }], siteFor("https://line.example.com"));
    await syncDocuments(env.DB, "https://line.example.com", [page as PreparedDocument], { prune: false });
    const parts: string[] = [];
    let next: string | undefined = page?.name;
    while (next) {
      const { documents } = await getDocuments([next]);
      parts.push(documents[0]?.content ?? "");
      next = documents[0]?.next;
    }
    expect(parts.length).toBeGreaterThan(line.length / DEFAULT_RESULT_BUDGET_CHARS);
    expect(parts.join("")).toBe(page?.content);
  });

  it("keeps the largest search page under the budget", async () => {
    const search = await callTool(client, "search_documents", { query: "quota key documents search filter page", pageSize: 20 });
    expect(resultText(search).length).toBeLessThanOrEqual(DEFAULT_RESULT_BUDGET_CHARS);
    expect((search.structuredContent as { nextPageToken?: string }).nextPageToken).toBeDefined();
  });

  it("keeps answers under the budget", async () => {
    const answer = await callTool(client, "answer_query", { query: "How do I write and register a query library entry with params, and how are they validated?" });
    expect(resultText(answer).length).toBeLessThanOrEqual(DEFAULT_RESULT_BUDGET_CHARS);
  });
});

describe("query-library text within the budget", () => {
  it("is cut between lines, never inside one, and says where the whole entry is", () => {
    const rows = Array.from({ length: 400 }, (_, i) => `| row ${i} | ${"x".repeat(20)} |`).join("\n");
    const text = textWriter("markdown", 2_000)({}, () => rows);
    expect(text.length).toBeLessThanOrEqual(2_000);
    expect(text).toMatch(/\| row \d+ \| x{20} \|\n\n\[… cut at 2000 characters; structuredContent holds the whole entry\]$/);
    expect(textWriter("markdown", 2_000)({}, () => "short")).toBe("short");
  });
});
