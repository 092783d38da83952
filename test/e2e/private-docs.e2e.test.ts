// Private documentation, attacked door by door on the real dev server: one
// public data source (zorblat.example) and one restricted to audience "ops"
// (runbooks.internal.example, two versions), ingested with the CLI. For
// every door an anonymous caller and a key of another audience ("sales")
// get nothing of the restricted source (no name, title, text, version,
// count or reference) and the very answers a source that does not exist
// gets, tampered tokens, cursors, URIs, filters and batches included; a key
// of "ops" gets both sources, mixed; and the audit log records the ops
// key's requests and nothing of the others.
import { rmSync } from "node:fs";
import type { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport as LegacyTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newStateDir, startServer, type RunningServer } from "./support/harness.ts";
import {
  allResources, call, callerDoors, cliIn, cursorAfter, errorOf, expectNoSecret, forgedToken,
  HIDDEN, HIDDEN_PAGE, MISSING_PAGE, MIXED_QUERY, MIXED_QUESTION, PUBLIC, PUBLIC_PAGE, RIGHT_MIXED_REFERENCES, WRONG,
  type AudienceKeys, type Json, type Who,
} from "./support/private-docs.ts";

const stateDir = newStateDir();
let server: RunningServer;

const keys: AudienceKeys = { ops: "", sales: "" };
const { headersOf, get, post, search, mcpClient } = callerDoors(() => server.url, keys);
let opsKeyId = "";
let salesKeyId = "";

const cli = cliIn(stateDir);

/** The newest row of the audit log: a door writes its row before it answers, so after a request it is that request's row, if it wrote one. */
function newestAuditRow(): Json {
  return JSON.parse(cli("cli/audit.ts", ["--json", "--limit", "1"]).trim()) as Json;
}

/** A right-audience answer's audit row: the restricted references' names, nothing public, no page text. */
function expectAuditedAnswer(row: Json, door: string, tool: string, references: string[]): void {
  expect(row).toMatchObject({ keyId: opsKeyId, audiences: ["ops"], door, tool, dataSources: [HIDDEN] });
  expect([...row.documents].sort()).toEqual(references.filter((name) => name.startsWith(`documents/${HIDDEN}/`)).sort());
  for (const content of ["45 seconds", "20 seconds", "quillfeather rotation", "zorblat.toml"]) expect(JSON.stringify(row)).not.toContain(content);
}

beforeAll(async () => {
  cli("cli/ingest.ts", ["docs", "test/fixtures/private/public", "--base-uri", `https://${PUBLIC}`]);
  const restricted = cli("cli/ingest.ts", ["docs", "test/fixtures/private/internal-v1", "--base-uri", `https://${HIDDEN}/v1`, "--version", "v1", "--audience", "ops"]);
  expect(restricted).toContain(`${HIDDEN} is restricted to audience ops`);
  // Re-ingesting without --audience keeps the source restricted.
  cli("cli/ingest.ts", ["docs", "test/fixtures/private/internal-v2", "--base-uri", `https://${HIDDEN}/v2`, "--version", "v2"]);
  // A kept source of the restricted data source, for GET /sources and the landing page's table (never refreshed here).
  cli("cli/sources.ts", ["add", "site", `https://${HIDDEN}/`, "--name", "ops-runbooks", "--audience", "ops"]);
  const ids: Record<string, string> = {};
  for (const audience of ["ops", "sales"] as const) {
    const lines = cli("cli/keys.ts", ["create", "--label", `${audience}-bot`, "--audience", audience]).trim().split("\n");
    keys[audience] = lines[lines.length - 1] ?? "";
    ids[audience] = /Created API key (key_[0-9a-f]{12}) .*audiences /.exec(lines[0] ?? "")?.[1] ?? "";
  }
  opsKeyId = ids.ops ?? "";
  salesKeyId = ids.sales ?? "";
  expect(opsKeyId).not.toBe("");
  // Anonymous answers come from 127.0.0.1 like every other anonymous request here: room for all of them.
  server = await startServer(["--var", "QUOTA_PUBLIC_ANSWER_PER_MINUTE:1000", "--var", "QUOTA_PUBLIC_ANSWER_PER_DAY:1000"], stateDir);
}, 600_000);

afterAll(async () => {
  await server?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

describe("REST facade", () => {
  it("search: wrong callers get only public chunks, the right key gets both sources mixed", async () => {
    for (const who of WRONG) {
      const { status, body } = await search(MIXED_QUERY, who);
      expect(status).toBe(200);
      expectNoSecret(body);
      expect((JSON.parse(body) as Json).results.map((hit: Json) => hit.parent)).toContain(PUBLIC_PAGE);
    }
    const right = JSON.parse((await search(MIXED_QUERY, "right audience")).body) as Json;
    const sources = new Set(right.results.map((hit: Json) => hit.document.dataSource));
    expect([...sources].sort()).toEqual([HIDDEN, PUBLIC]);
  });

  it("search: a filter naming the hidden source, or every version, is answered as for a source that does not exist", async () => {
    for (const who of WRONG) {
      const hidden = await search("quillfeather rotation", who, `&filter=${encodeURIComponent(`data_source = "${HIDDEN}"`)}`);
      const none = await search("quillfeather rotation", who, `&filter=${encodeURIComponent('data_source = "nowhere.example"')}`);
      expect(hidden).toMatchObject({ status: none.status, body: none.body });
      const everyVersion = await search("zorblat quillfeather credentials rotation", who, `&filter=${encodeURIComponent('version = "*"')}`);
      expectNoSecret(everyVersion.body);
      const oldVersion = await search("zorblat quillfeather", who, `&filter=${encodeURIComponent('version = "v1"')}`);
      expect(oldVersion.body).toBe("{}");
    }
    const right = await search("quillfeather rotation", "right audience", `&filter=${encodeURIComponent('version = "*"')}`);
    expect(new Set((JSON.parse(right.body) as Json).results.map((hit: Json) => hit.document.version))).toEqual(new Set(["v1", "v2"]));
  });

  it("search: page tokens, replayed from the right key or forged at any offset, page through public chunks only", async () => {
    const first = JSON.parse((await search(MIXED_QUERY, "right audience", "", 1)).body) as Json;
    expect(first.nextPageToken).toBeDefined();
    for (const who of WRONG) {
      const replayed = await search(MIXED_QUERY, who, `&pageToken=${encodeURIComponent(first.nextPageToken)}`, 1);
      expectNoSecret(replayed.body);
      for (const offset of [0, 1, 2, 3, 5, 8, 50, 199]) {
        const forged = await search(MIXED_QUERY, who, `&pageToken=${encodeURIComponent(forgedToken(offset, MIXED_QUERY))}`);
        expect(forged.status).toBe(200);
        expectNoSecret(forged.body);
      }
    }
  });

  it("get and batchGet: a hidden page is NOT_FOUND exactly like a missing one, in every view and in a batch with a public page", async () => {
    for (const who of WRONG) {
      for (const view of ["", "?view=DOCUMENT_VIEW_BASIC", "?view=DOCUMENT_VIEW_FULL"]) {
        const hidden = await get(`/v1/${HIDDEN_PAGE}${view}`, who);
        const missing = await get(`/v1/${MISSING_PAGE}${view}`, who);
        expect(hidden.status).toBe(404);
        expect(hidden.body.replace(HIDDEN_PAGE, "NAME")).toBe(missing.body.replace(MISSING_PAGE, "NAME"));
        // Headers alike (an ETag is the hash of this very body, the same as for a missing name).
        expect([...hidden.headers.keys()].filter((name) => name !== "server-timing").sort()).toEqual([...missing.headers.keys()].filter((name) => name !== "server-timing").sort());
      }
      const batch = await get(`/v1/documents:batchGet?names=${PUBLIC_PAGE}&names=${HIDDEN_PAGE}`, who);
      const batchMissing = await get(`/v1/documents:batchGet?names=${PUBLIC_PAGE}&names=${MISSING_PAGE}`, who);
      expect(batch.status).toBe(404);
      expect(batch.body.replace(HIDDEN_PAGE, "NAME")).toBe(batchMissing.body.replace(MISSING_PAGE, "NAME"));
    }
    const right = await get(`/v1/documents:batchGet?names=${PUBLIC_PAGE}&names=${HIDDEN_PAGE}`, "right audience");
    expect(right.status).toBe(200);
    expect((JSON.parse(right.body) as Json).documents.map((doc: Json) => doc.name)).toEqual([PUBLIC_PAGE, HIDDEN_PAGE]);
  });

  it("caching: keyed reads are private and vary by key; the right key's ETag revalidates nothing for another caller", async () => {
    const right = await get(`/v1/${PUBLIC_PAGE}`, "right audience");
    expect(right.headers.get("cache-control")).toMatch(/^private/);
    expect(right.headers.get("vary")).toMatch(/X-Goog-Api-Key/);
    const rightSearch = await search(MIXED_QUERY, "right audience");
    const etag = rightSearch.headers.get("etag") ?? "";
    expect(etag).not.toBe("");
    for (const who of WRONG) {
      const revalidated = await get(`/v1/documents:searchDocumentChunks?query=${encodeURIComponent(MIXED_QUERY)}&pageSize=20&prettyPrint=false`, who, { "If-None-Match": etag });
      expect(revalidated.status).toBe(200);
      expectNoSecret(revalidated.body);
    }
    expect((await get(`/v1/${PUBLIC_PAGE}`, "anonymous")).headers.get("cache-control")).toMatch(/^public/);
  });

  it("answerQuery: wrong callers' answers draw on public pages only; the right key's on the restricted ones too", async () => {
    const question = { query: "How often do the quillfeather credentials rotate?" };
    for (const who of WRONG) {
      const { status, body } = await post("/v1:answerQuery", who, question);
      expect(status).toBe(200);
      expectNoSecret(body);
      const hidden = await post("/v1:answerQuery", who, { ...question, filter: `data_source = "${HIDDEN}"` });
      const none = await post("/v1:answerQuery", who, { ...question, filter: 'data_source = "nowhere.example"' });
      expect(hidden).toEqual(none);
    }
    const right = JSON.parse((await post("/v1:answerQuery", "right audience", question)).body) as Json;
    expect(JSON.stringify(right)).toContain(HIDDEN);
  });

  it("answerQuery: a question both sources answer is a mixed answer for the right key, a public one for the others, and its audit row names only the restricted pages", async () => {
    const referencesOf = (body: string) => (JSON.parse(body) as Json).answer.references.map((reference: Json) => reference.documentReference.documentChunk.parent as string);
    for (const who of WRONG) {
      const { status, body } = await post("/v1:answerQuery", who, { query: MIXED_QUESTION });
      expect(status).toBe(200);
      expectNoSecret(body);
      expect(referencesOf(body)).toContain(PUBLIC_PAGE);
      expect(referencesOf(body).every((name: string) => name.startsWith(`documents/${PUBLIC}/`))).toBe(true);
    }
    const right = await post("/v1:answerQuery", "right audience", { query: MIXED_QUESTION });
    expect(right.status).toBe(200);
    const references: string[] = referencesOf(right.body);
    expect(references).toEqual(expect.arrayContaining(RIGHT_MIXED_REFERENCES));
    // Each source is cited in the text, not only listed (proto3 JSON leaves out a referenceIndex of 0).
    const answer = (JSON.parse(right.body) as Json).answer;
    const cited = new Set(answer.citations.flatMap((citation: Json) => citation.sources.map((source: Json) => references[source.referenceIndex ?? 0])));
    for (const name of RIGHT_MIXED_REFERENCES) expect(cited).toContain(name);
    expectAuditedAnswer(newestAuditRow(), "rest", "answerQuery", references);
  });
});

describe.each(["2025", "2026-07-28"] as const)("MCP, era %s", (era) => {
  it("search_documents, get_documents and answer_query: nothing hidden for wrong callers, both sources for the right key", async () => {
    for (const who of WRONG) {
      const { client, close } = await mcpClient(era, who);
      try {
        const hits = await call(client, "search_documents", { query: MIXED_QUERY, pageSize: 20 });
        expectNoSecret(JSON.stringify(hits));
        for (const token of [forgedToken(1, MIXED_QUERY), forgedToken(3, MIXED_QUERY)]) {
          expectNoSecret(JSON.stringify(await call(client, "search_documents", { query: MIXED_QUERY, pageToken: token })));
        }
        const hiddenFilter = await call(client, "search_documents", { query: "zorblat", filter: `data_source = "${HIDDEN}"` });
        const noneFilter = await call(client, "search_documents", { query: "zorblat", filter: 'data_source = "nowhere.example"' });
        expect(hiddenFilter).toEqual(noneFilter);
        expectNoSecret(JSON.stringify(await call(client, "search_documents", { query: "zorblat credentials rotation", filter: 'version = "*"' })));

        const hidden = await call(client, "get_documents", { names: [PUBLIC_PAGE, HIDDEN_PAGE, `${HIDDEN_PAGE}#escalation`] });
        const missing = await call(client, "get_documents", { names: [PUBLIC_PAGE, MISSING_PAGE, `${MISSING_PAGE}#escalation`] });
        expect(hidden.isError).toBe(true);
        expect(JSON.stringify(hidden).replaceAll(HIDDEN_PAGE, "NAME")).toBe(JSON.stringify(missing).replaceAll(MISSING_PAGE, "NAME"));

        // The question names the restricted words; the answer echoes none of it, and draws on nothing hidden.
        const answer = await call(client, "answer_query", { query: "How often do the quillfeather credentials rotate?" });
        expectNoSecret(JSON.stringify(answer));
        const mixed = await call(client, "answer_query", { query: MIXED_QUESTION });
        expectNoSecret(JSON.stringify(mixed));
        expect(mixed.structuredContent.references).toContain(PUBLIC_PAGE);
        expect(mixed.structuredContent.references.every((name: string) => name.startsWith(`documents/${PUBLIC}/`))).toBe(true);
      } finally {
        await close();
      }
    }
    const { client, close } = await mcpClient(era, "right audience");
    try {
      const hits = await call(client, "search_documents", { query: MIXED_QUERY, pageSize: 20 });
      expect(new Set(hits.structuredContent.results.map((hit: Json) => hit.document.dataSource))).toEqual(new Set([PUBLIC, HIDDEN]));
      const pages = await call(client, "get_documents", { names: [PUBLIC_PAGE, HIDDEN_PAGE] });
      expect(pages.structuredContent.documents.map((doc: Json) => doc.name)).toEqual([PUBLIC_PAGE, HIDDEN_PAGE]);
      const answer = await call(client, "answer_query", { query: "How often do the quillfeather credentials rotate?" });
      expect(JSON.stringify(answer.structuredContent.references)).toContain(HIDDEN);
      const mixed = await call(client, "answer_query", { query: MIXED_QUESTION });
      expect(mixed.structuredContent.references).toEqual(expect.arrayContaining(RIGHT_MIXED_REFERENCES));
      for (const name of RIGHT_MIXED_REFERENCES) expect(mixed.content[0].text).toContain(name);
      expectAuditedAnswer(newestAuditRow(), "mcp", "answer_query", mixed.structuredContent.references);
    } finally {
      await close();
    }
  });

  it("resources: listing (from any cursor), reading and completion show wrong callers nothing hidden", async () => {
    for (const who of WRONG) {
      const { client, close } = await mcpClient(era, who);
      try {
        const listed = await allResources(client);
        expect(listed.map((resource) => resource.name)).toContain(PUBLIC_PAGE);
        expectNoSecret(JSON.stringify(listed));
        // A forged cursor placed just before the hidden pages lists what follows them, as for any name.
        expectNoSecret(JSON.stringify(await allResources(client, cursorAfter(`documents/${HIDDEN}`))));
        expectNoSecret(JSON.stringify(await allResources(client, cursorAfter("documents/r"))));

        const hidden = await errorOf((client as LegacyClient).readResource({ uri: `https://${HIDDEN}/v2/rotate` }));
        const missing = await errorOf((client as LegacyClient).readResource({ uri: `https://${HIDDEN}/v2/no-such-page` }));
        expect(hidden.code).toBe(-32602);
        expect(JSON.stringify(hidden).replaceAll("v2/rotate", "PATH")).toBe(JSON.stringify(missing).replaceAll("v2/no-such-page", "PATH"));

        for (const typed of [`${HIDDEN}/`, "runbooks", "r", ""]) {
          const completion = (await (client as LegacyClient).complete({ ref: { type: "ref/resource", uri: "https://{+path}" }, argument: { name: "path", value: typed } })) as Json;
          expectNoSecret(JSON.stringify(completion.completion.values));
        }
        const hiddenPrefix = (await (client as LegacyClient).complete({ ref: { type: "ref/resource", uri: "https://{+path}" }, argument: { name: "path", value: `${HIDDEN}/` } })) as Json;
        const missingPrefix = (await (client as LegacyClient).complete({ ref: { type: "ref/resource", uri: "https://{+path}" }, argument: { name: "path", value: "nowhere.example/" } })) as Json;
        expect(hiddenPrefix).toEqual(missingPrefix);
      } finally {
        await close();
      }
    }
    const { client, close } = await mcpClient(era, "right audience");
    try {
      expect((await allResources(client)).map((resource) => resource.name)).toEqual(expect.arrayContaining([PUBLIC_PAGE, HIDDEN_PAGE]));
      const read = (await (client as LegacyClient).readResource({ uri: `https://${HIDDEN}/v2/rotate` })) as Json;
      expect(read.contents[0].text).toContain("quillfeather");
      const completion = (await (client as LegacyClient).complete({ ref: { type: "ref/resource", uri: "https://{+path}" }, argument: { name: "path", value: `${HIDDEN}/v2/` } })) as Json;
      expect(completion.completion.values).toContain(`${HIDDEN}/v2/rotate`);
    } finally {
      await close();
    }
  });
});

describe("a 2025 session", () => {
  it("belongs to the key that opened it: another key, or none, is told the session does not exist", async () => {
    const { client, close } = await mcpClient("2025", "right audience");
    try {
      const sessionId = ((client as LegacyClient).transport as LegacyTransport | undefined)?.sessionId ?? "";
      expect(sessionId).not.toBe("");
      const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_documents", arguments: { names: [HIDDEN_PAGE] } } });
      for (const who of WRONG) {
        const response = await fetch(new URL("/mcp", server.url), {
          method: "POST",
          headers: { ...headersOf(who), "Content-Type": "application/json", Accept: "application/json, text/event-stream", "Mcp-Session-Id": sessionId, "MCP-Protocol-Version": "2025-06-18" },
          body,
        });
        expect(response.status).toBe(404);
        expectNoSecret(await response.text());
      }
    } finally {
      await close();
    }
  });
});

describe("web doors", () => {
  it("/llms.txt lists the restricted source to the right key only, and caches the keyless view publicly", async () => {
    for (const who of WRONG) {
      const { status, body } = await get("/llms.txt", who);
      expect(status).toBe(200);
      expect(body).toContain(PUBLIC);
      expectNoSecret(body);
    }
    const anonymous = await get("/llms.txt", "anonymous");
    expect(anonymous.headers.get("cache-control")).toMatch(/^public/);
    expect(anonymous.headers.get("vary")).toMatch(/X-Goog-Api-Key/);
    // The keyless view is the same for an anonymous caller and a key of another audience: it names nothing more.
    expect((await get("/llms.txt", "wrong audience")).body).toBe(anonymous.body);
    const right = await get("/llms.txt", "right audience");
    expect(right.body).toContain(`## ${HIDDEN}`);
    expect(right.headers.get("cache-control")).toMatch(/^private/);
  });

  it("/documents/<host>/<path>.md: a hidden page is a missing page", async () => {
    for (const who of WRONG) {
      const hidden = await get(`/${HIDDEN_PAGE}.md`, who);
      const missing = await get(`/${MISSING_PAGE}.md`, who);
      expect(hidden.status).toBe(404);
      expect(hidden.body.replace(HIDDEN_PAGE, "NAME")).toBe(missing.body.replace(MISSING_PAGE, "NAME"));
    }
    const right = await get(`/${HIDDEN_PAGE}.md`, "right audience");
    expect(right.status).toBe(200);
    expect(right.body).toContain("quillfeather");
  });

  it("GET /sources and /healthz count and list only what the caller sees", async () => {
    const counts: Record<string, number> = {};
    for (const who of [...WRONG, "right audience"] as Who[]) {
      const sources = await get("/sources", who);
      expect(sources.status).toBe(200);
      const names = (JSON.parse(sources.body) as Json).sources.map((source: Json) => source.name);
      if (who === "right audience") expect(names).toEqual(["ops-runbooks"]);
      else expect(sources.body).toBe('{"sources":[]}');
      counts[who] = (JSON.parse((await get("/healthz", who)).body) as Json).documents;
    }
    expect(counts["wrong audience"]).toBe(counts.anonymous);
    expect(counts["right audience"]).toBe((counts.anonymous ?? 0) + 3);
  });

  it("the landing page: counts, source table and try-it forms show the restricted source to the right key only", async () => {
    for (const who of WRONG) {
      const page = await get("/", who);
      expect(page.status).toBe(200);
      expect(page.body).toContain(PUBLIC);
      expectNoSecret(page.body.replace(/ops-runbooks/g, "x"));
      expect(page.body).not.toContain("ops-runbooks");
      const tried = await get(`/try/search?query=${encodeURIComponent(MIXED_QUERY)}`, who);
      expectNoSecret(tried.body);
      const filtered = await get(`/try/search?query=zorblat&dataSource=${encodeURIComponent(HIDDEN)}`, who);
      const nowhere = await get(`/try/search?query=zorblat&dataSource=nowhere.example`, who);
      expect(filtered.status).toBe(nowhere.status);
      expectNoSecret(filtered.body.replaceAll(HIDDEN, "nowhere.example"));
    }
    const right = await get("/", "right audience");
    expect(right.body).toContain(HIDDEN);
    expect(right.body).toContain("ops-runbooks");
    expect(right.headers.get("cache-control")).toBe("no-store");
  });
});

describe("the audit log", () => {
  it("records the right key's reads of the restricted source, door by door, and nothing of the other callers or of any page's text", () => {
    const rows = cli("cli/audit.ts", ["--json", "--limit", "1000"])
      .trim()
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as Json);
    expect(rows.length).toBeGreaterThan(0);
    expect(new Set(rows.map((row) => row.keyId))).toEqual(new Set([opsKeyId]));
    expect(rows.every((row) => JSON.stringify(row.audiences) === '["ops"]' && JSON.stringify(row.dataSources) === JSON.stringify([HIDDEN]))).toBe(true);
    const doors = new Set(rows.map((row) => `${row.door} ${row.tool}`));
    for (const door of [
      "rest searchDocumentChunks",
      "rest batchGet",
      "rest answerQuery",
      "mcp search_documents",
      "mcp get_documents",
      "mcp answer_query",
      "mcp resources/list",
      "mcp resources/read",
      "mcp completion/complete",
      "llms.txt llms.txt",
      "markdown page",
      "sources sources",
      "healthz healthz",
      "web landing page",
    ]) {
      expect(doors, door).toContain(door);
    }
    expect(rows.flatMap((row) => row.documents)).toContain(HIDDEN_PAGE);
    expect(rows.flatMap((row) => row.documents).every((name: string) => name.startsWith(`documents/${HIDDEN}/`))).toBe(true);
    const text = JSON.stringify(rows);
    for (const content of ["45 seconds", "escalation bridge", "cached credentials"]) expect(text).not.toContain(content);
    expect(text).not.toContain(salesKeyId);
  }, 120_000);
});
