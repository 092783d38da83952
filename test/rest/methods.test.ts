// What each REST method does for a program written for Google's API, and how
// it refuses bad input: Google's error body, INVALID_ARGUMENT and NOT_FOUND
// with messages that say what to change, never a 500.
import { env } from "cloudflare:test";
import { describe, expect, it, beforeAll } from "vitest";
import { createApiKey } from "../../src/auth/key-store.ts";
import { NO_GROUNDED_ANSWER } from "../../src/documents/answer/answer-query.ts";
import { prepareSite, siteFor } from "../../src/documents/ingest/prepare-pages.ts";
import { syncDocuments } from "../../src/documents/ingest/write-corpus.ts";
import { corpusName, loadCorpus } from "../support/corpus.ts";
import { connectClient, callTool } from "../support/mcp-connect.ts";
import { answerQuery, rest, restJson } from "../support/rest.ts";

/** A key with room for every answer this file asks for (the public tier allows 3 a minute). */
let keyed: Record<string, string>;

beforeAll(async () => {
  await loadCorpus();
  keyed = { "X-Goog-Api-Key": (await createApiKey(env.DB, { label: "rest-methods", answerPerMinute: 1000 })).key };
});

const search = (query: Record<string, string>) => restJson<SearchBody>(`/v1/documents:searchDocumentChunks?${new URLSearchParams(query)}`);

interface SearchBody {
  results?: { parent: string; id: string; content: string; document: { name: string; contentLengthBytes: number; updateTime: string } }[];
  nextPageToken?: string;
  error?: { code: number; message: string; status: string };
}

/** Google's error body with this status and a message matching `message`. */
function googleError(code: number, status: string, message: string | RegExp) {
  return { error: { code, status, message: typeof message === "string" ? message : expect.stringMatching(message) } };
}

describe("GET /v1/documents:searchDocumentChunks", () => {
  it("returns the chunks search_documents returns, in the same order, with the same page token", async () => {
    const client = await connectClient();
    try {
      const mcp = (await callTool(client, "search_documents", { query: "revoke an API key", pageSize: 4 })).structuredContent as SearchBody;
      const { status, body } = await search({ query: "revoke an API key", pageSize: "4" });
      expect(status).toBe(200);
      expect(body.results?.map((hit) => [hit.parent, hit.id, hit.content])).toEqual(mcp.results?.map((hit) => [hit.parent, hit.id, hit.content]));
      expect(body.nextPageToken).toBe(mcp.nextPageToken);
    } finally {
      await client.close();
    }
  });

  it("gives each result's document its size in UTF-8 bytes, as a get of the page reports", async () => {
    const { body } = await search({ query: "ETag Cache-Control" });
    for (const hit of body.results ?? []) {
      const page = await restJson<{ content: string; contentLengthBytes: number }>(`/v1/${hit.parent}`);
      expect(hit.document.contentLengthBytes).toBe(new TextEncoder().encode(page.body.content).byteLength);
      expect(hit.document.contentLengthBytes).toBe(page.body.contentLengthBytes);
    }
  });

  // Regression (issue 24): pageSize stopped at 20 where Google's discovery document allows 100.
  it("returns 5 results by default and for pageSize=0, up to 100 when asked, and coerces a pageSize above 100 to 100", async () => {
    expect((await search({ query: "api" })).body.results).toHaveLength(5);
    expect((await search({ query: "api", pageSize: "0" })).body.results).toHaveLength(5);
    const large = await search({ query: "the", pageSize: "100" });
    expect(large.status).toBe(200);
    expect(large.body.results?.length).toBeGreaterThan(20);
    expect(large.body.results?.length).toBeLessThanOrEqual(100);
    const above = await search({ query: "the", pageSize: "5000" });
    expect(above.status).toBe(200);
    expect(above.body.results?.map((hit) => hit.id)).toEqual(large.body.results?.map((hit) => hit.id));
  });

  it("pages with nextPageToken without repeating a chunk, and accepts the token under its proto name page_token", async () => {
    const first = await search({ query: "answer_query quota", pageSize: "3" });
    expect(first.body.nextPageToken).toEqual(expect.any(String));
    const second = await search({ query: "answer_query quota", page_size: "3", page_token: first.body.nextPageToken as string });
    const key = (hit: { parent: string; id: string }) => `${hit.parent}#${hit.id}`;
    expect(second.body.results?.map(key).some((hit) => first.body.results?.map(key).includes(hit))).toBe(false);
  });

  it("answers no match with an empty message, as proto3 JSON leaves out an empty list", async () => {
    const { status, body } = await search({ query: "quantum chromodynamics gluon" });
    expect(status).toBe(200);
    expect(body).toEqual({});
  });

  it.each(['"foo* AND (bar NEAR -x:y', "NOT", "🙂🙂", "データベース", "' OR 1=1 --", "((("])("treats hostile text %s as words", async (query) => {
    expect((await search({ query })).status).toBe(200);
  });

  it.each([
    [{}, 400, "INVALID_ARGUMENT", "query is required; ask a question or give keywords, e.g. query=connect+Claude+Code"],
    [{ query: "" }, 400, "INVALID_ARGUMENT", "query must not be empty; ask a question or give keywords"],
    [{ query: "x".repeat(501) }, 400, "INVALID_ARGUMENT", "query must be at most 500 characters; shorten it to the key terms"],
    [{ query: "api", pageSize: "-1" }, 400, "INVALID_ARGUMENT", "pageSize must not be negative (got -1); omit it for 5 results"],
    [{ query: "api", pageSize: "ten" }, 400, "INVALID_ARGUMENT", 'pageSize must be a whole number (int32), not "ten"'],
    [{ query: "api", pageSize: "99999999999" }, 400, "INVALID_ARGUMENT", /^pageSize must be a whole number \(int32\)/],
    [{ query: "api", pageToken: "garbage" }, 400, "INVALID_ARGUMENT", /^pageToken is not a token this server issued/],
    [{ query: "api", filter: 'data_source = "almanac.dev" AND' }, 400, "INVALID_ARGUMENT", /filter/],
    [{ query: "api", filter: "colour = 1" }, 400, "INVALID_ARGUMENT", /colour/],
    [{ query: "api", filter: "x".repeat(501) }, 400, "INVALID_ARGUMENT", "filter must be at most 500 characters"],
    [{ query: "api", query_: "x" }, 400, "INVALID_ARGUMENT", /^unknown parameter "query_"; developerknowledge.documents.searchDocumentChunks takes query, pageSize, pageToken, filter/],
  ] as const)("refuses search parameters #%# with %i %s", async (query, code, status, message) => {
    const response = await search(query as Record<string, string>);
    expect(response.status).toBe(code);
    expect(response.body).toEqual(googleError(code, status, message));
  });

  it("refuses a page token replayed with another query", async () => {
    const first = await search({ query: "answer_query quota", pageSize: "1" });
    const replay = await search({ query: "something else", pageToken: first.body.nextPageToken as string });
    expect(replay.body).toEqual(googleError(400, "INVALID_ARGUMENT", /^pageToken belongs to a different query or filter/));
  });

  it("filters on the document fields, content_length_bytes included", async () => {
    const { body } = await search({ query: "api key", filter: "content_length_bytes < 4000", pageSize: "20" });
    expect(body.results?.length).toBeGreaterThan(0);
    for (const hit of body.results ?? []) expect(hit.document.contentLengthBytes).toBeLessThan(4000);
  });
});

describe("GET /v1/{name=documents/**}", () => {
  const name = corpusName("filters");

  it("returns the page with its content (the CONTENT view) and its size and update time", async () => {
    const { status, body } = await restJson<Record<string, string | number>>(`/v1/${name}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ name, uri: "https://almanac.dev/docs/filters", dataSource: "almanac.dev", view: "DOCUMENT_VIEW_CONTENT" });
    expect(body.contentLengthBytes).toBe(new TextEncoder().encode(body.content as string).byteLength);
    expect(body.updateTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  });

  it("returns the same Markdown get_documents returns for a page that fits one result", async () => {
    const client = await connectClient();
    try {
      const mcp = (await callTool(client, "get_documents", { names: [name] })).structuredContent as { documents: { content: string }[] };
      const { body } = await restJson<{ content: string }>(`/v1/${name}`);
      expect(body.content).toBe(mcp.documents[0]?.content);
    } finally {
      await client.close();
    }
  });

  it.each([
    [`/v1/${corpusName("no-such-page")}`, 404, "NOT_FOUND", `no document named "${corpusName("no-such-page")}"; use search_documents to find valid names (the parent field of each result)`],
    [`/v1/documents/${"a".repeat(500)}`, 400, "INVALID_ARGUMENT", /^name "documents\/a+" is 510 characters long; names are at most 500$/],
    ["/v1/documents/", 400, "INVALID_ARGUMENT", /must have the form "documents\/\{host\}\/\{path\}"/],
    ["/v1/documents/almanac.dev/%E0%A4%A", 400, "INVALID_ARGUMENT", /is not valid percent-encoding/],
    [`/v1/${name}?view=DOCUMENT_VIEW_EVERYTHING`, 400, "INVALID_ARGUMENT", 'view "DOCUMENT_VIEW_EVERYTHING" is not a DocumentView; use one of DOCUMENT_VIEW_UNSPECIFIED, DOCUMENT_VIEW_BASIC, DOCUMENT_VIEW_FULL, DOCUMENT_VIEW_CONTENT'],
    [`/v1/${name}?names=${name}`, 400, "INVALID_ARGUMENT", /^unknown parameter "names"; developerknowledge.documents.get takes view/],
    [`/v1/${name}?view=1&view=2`, 400, "INVALID_ARGUMENT", "view is given 2 times; give it once"],
  ] as const)("answers get #%# with %i %s", async (path, code, status, message) => {
    const response = await restJson(path);
    expect(response.status).toBe(code);
    expect(response.body).toEqual(googleError(code, status, message));
  });
});

describe("GET /v1/documents:batchGet", () => {
  const [a, b] = [corpusName("filters"), corpusName("configuration")];
  const batch = (names: string[], extra = "") => restJson<{ documents: { name: string; view: string; content?: string }[] }>(
    `/v1/documents:batchGet?${names.map((name) => `names=${encodeURIComponent(name)}`).join("&")}${extra}`,
  );

  it("returns the pages in the order named", async () => {
    const { body } = await batch([b, a]);
    expect(body.documents.map((document) => document.name)).toEqual([b, a]);
    expect(body.documents.every((document) => document.view === "DOCUMENT_VIEW_CONTENT" && document.content)).toBe(true);
  });

  // Regression (issue 24): the same name 20 times returned 110 MB of JSON for a 5.5 MB page.
  it("refuses a repeated name, naming it", async () => {
    const response = await batch([b, a, b, b]);
    expect(response.status).toBe(400);
    expect(response.body).toEqual(googleError(400, "INVALID_ARGUMENT", `names repeats "${b}"; name each document once`));
  });

  it("refuses pages too large together for one response, before reading them", async () => {
    // Nine pages of 2 MB, the most D1 stores in one row: 18 MB together, past the 16 MB ceiling.
    const pages = Array.from({ length: 9 }, (_, i) => ({ path: `big-${i}.md`, text: `---\ntitle: Big ${i}\n---\n${"x".repeat(2_000_000)}` }));
    const { documents } = await prepareSite(pages, siteFor("https://big.example.com"));
    await syncDocuments(env.DB, "https://big.example.com", documents, { prune: false });
    const names = documents.map((doc) => doc.name);
    const response = await batch(names);
    expect(response.status).toBe(400);
    expect(response.body).toEqual(googleError(400, "INVALID_ARGUMENT", "these 9 pages come to 17.2 MB, more than the 16.0 MB one REST response carries; ask for fewer names per call"));
    expect((await batch(names.slice(0, 8), "&view=DOCUMENT_VIEW_BASIC")).status).toBe(200);
    // Issue 39, row 12: the BASIC view carries no content, so the ceiling does not apply to it.
    const basic = await batch(names, "&view=DOCUMENT_VIEW_BASIC");
    expect(basic.status).toBe(200);
    expect(basic.body.documents).toHaveLength(9);
    await syncDocuments(env.DB, "https://big.example.com", [], { prune: true });
  });

  it("applies the view to every page", async () => {
    const { body } = await batch([a, b], "&view=DOCUMENT_VIEW_BASIC");
    expect(body.documents.map((document) => [document.view, "content" in document])).toEqual([
      ["DOCUMENT_VIEW_BASIC", false],
      ["DOCUMENT_VIEW_BASIC", false],
    ]);
  });

  it("fails as a whole when any name is unknown, naming every missing one", async () => {
    const missing = [corpusName("nope-1"), corpusName("nope-2")];
    const response = await batch([a, missing[0] as string, b, missing[1] as string]);
    expect(response.status).toBe(404);
    expect(response.body).toEqual(googleError(404, "NOT_FOUND", `no document named "${missing[0]}", "${missing[1]}"; use search_documents to find valid names (the parent field of each result)`));
  });

  it.each([
    [[], "names is required: give 1–20 document names as names=documents/…&names=documents/… (the parent of a search result)"],
    [Array.from({ length: 21 }, () => "documents/almanac.dev/docs/filters"), "names lists 21 documents; at most 20 per call, so split the request"],
    [["documents/almanac.dev/docs/filters", "dart.dev/language"], 'names[1] "dart.dev/language" must have the form "documents/{host}/{path}", as in the parent of a search_documents result'],
  ])("refuses batchGet names #%# with 400 INVALID_ARGUMENT", async (names, message) => {
    const response = await batch(names);
    expect(response.status).toBe(400);
    expect(response.body).toEqual(googleError(400, "INVALID_ARGUMENT", message));
  });
});

describe("POST /v1:answerQuery", () => {
  it("gives answer_query's answer, references and citations", async () => {
    const query = "How do I revoke an API key?";
    const client = await connectClient();
    try {
      const mcp = (await callTool(client, "answer_query", { query })).structuredContent as {
        answerText: string;
        references: string[];
        citations: { startIndex: number; endIndex: number; sources: { referenceIndex: number }[] }[];
      };
      const response = await answerQuery({ query }, keyed);
      expect(response.status).toBe(200);
      const { answer } = (await response.json()) as {
        answer: { answerText: string; references: { documentReference: { documentChunk: { parent: string } } }[]; citations: { startIndex?: number; endIndex: number; sources: { referenceIndex?: number }[] }[] };
      };
      expect(answer.answerText).toBe(mcp.answerText);
      expect(answer.references.map((reference) => reference.documentReference.documentChunk.parent)).toEqual(mcp.references);
      // proto3 JSON leaves out zeros: a citation at byte 0 has no startIndex, a source of reference 0 is {}.
      const withDefaults = answer.citations.map((citation) => ({
        startIndex: citation.startIndex ?? 0,
        endIndex: citation.endIndex,
        sources: citation.sources.map((source) => ({ referenceIndex: source.referenceIndex ?? 0 })),
      }));
      expect(withDefaults).toEqual(mcp.citations);
      expect(answer.citations[0]).not.toHaveProperty("startIndex");
      expect(answer.citations[0]?.sources[0]).toEqual({});
    } finally {
      await client.close();
    }
  });

  it("gives each reference the chunk the answer draws on and its page's metadata in the BASIC view", async () => {
    const { answer } = (await (await answerQuery({ query: "How do I revoke an API key?" }, keyed)).json()) as {
      answer: { answerText: string; references: { documentReference: { documentChunk: { parent: string; content: string; document: Record<string, unknown> } } }[] };
    };
    const [first] = answer.references;
    const chunk = first?.documentReference.documentChunk;
    expect(chunk?.document).toMatchObject({ name: chunk?.parent, view: "DOCUMENT_VIEW_BASIC", contentLengthBytes: expect.any(Number) });
    // The answer opens with that chunk's section heading, then a passage copied from it.
    const [heading = "", lead = ""] = answer.answerText.split("\n\n");
    expect(chunk?.content.split("\n")[0]).toContain(heading);
    expect(chunk?.content.replace(/\s+/g, " ")).toContain(lead.replace(/\s+/g, " ").slice(0, 40));
  });

  it("answers a question the documentation cannot answer with the honest notice and no references", async () => {
    const response = await answerQuery({ query: "quantum chromodynamics gluon" }, keyed);
    expect(await response.json()).toEqual({ answer: { answerText: NO_GROUNDED_ANSWER } });
  });

  it("takes the filter of Google's later revisions, the same filter as search", async () => {
    const response = await answerQuery({ query: "How do I revoke an API key?", filter: 'data_source = "nowhere.example"' }, keyed);
    expect(await response.json()).toEqual({ answer: { answerText: NO_GROUNDED_ANSWER } });
  });

  it.each([
    ["not json", 400, /^the request body is not valid JSON \(.+\); send \{"query": "How do I create an API key\?"\}$/],
    ["[1]", 400, 'the request body must be a JSON object: {"query": "How do I create an API key?"}'],
    ["{}", 400, 'query is required; send {"query": "How do I create an API key?"}'],
    ['{"query": null}', 400, 'query is required; send {"query": "How do I create an API key?"}'],
    ['{"query": 42}', 400, "query must be a string, not number"],
    ['{"query": ""}', 400, "query must not be empty; ask a question or give keywords"],
    ['{"query": "x", "question": "y"}', 400, 'unknown field "question" in the request body; AnswerQueryRequest has query and filter'],
    ['{"query": "keys", "filter": "update_time > 2026"}', 400, /update_time/],
    [JSON.stringify({ query: "x".repeat(20_000) }), 413, /^the request body is over 16384 bytes/],
  ] as const)("refuses answerQuery body #%# with %i INVALID_ARGUMENT", async (body, code, message) => {
    const response = await rest("/v1:answerQuery", { method: "POST", headers: { "Content-Type": "application/json", ...keyed }, body });
    expect(response.status).toBe(code);
    expect(await response.json()).toEqual(googleError(code, "INVALID_ARGUMENT", message));
  });
});

describe("what the server does not serve", () => {
  it.each([
    ["GET", "/v1/documents:list", /^there is no REST method at GET \/v1\/documents:list; this API \(Google's Developer Knowledge API v1\) has GET \/v1\/documents:searchDocumentChunks/],
    ["GET", "/v1/projects/x", /^there is no REST method at GET \/v1\/projects\/x/],
    ["POST", "/v1:searchDocumentChunks", /^there is no REST method at POST \/v1:searchDocumentChunks/],
    ["GET", "/v2/documents:batchGet", /^nothing is served at GET \/v2\/documents:batchGet; this server answers MCP at \/mcp, the REST API under \/v1/],
    ["DELETE", "/healthz", /^nothing is served at DELETE \/healthz/],
  ])("answers %s %s with a Google-shaped 404, not hono's plain text", async (method, path, message) => {
    const response = await rest(path, { method });
    expect(response.status).toBe(404);
    expect(response.headers.get("Content-Type")).toMatch(/^application\/json/);
    expect(await response.json()).toEqual(googleError(404, "NOT_FOUND", message));
  });

  it("refuses the methods of tools ENABLED_TOOLS leaves out with 403 PERMISSION_DENIED", async () => {
    // Earlier tests in this file spent the anonymous search allowance of this minute: the tool switch is what is tested here.
    const vars = { ENABLED_TOOLS: "search_documents", QUOTA_PUBLIC_SEARCH_PER_MINUTE: "1000" };
    expect((await rest("/v1/documents:searchDocumentChunks?query=api", {}, vars)).status).toBe(200);
    const refused = await answerQuery({ query: "How do I revoke an API key?" }, {}, vars);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual(googleError(403, "PERMISSION_DENIED", "this method is turned off on this server: its operator left answer_query out of ENABLED_TOOLS"));
    expect((await rest(`/v1/${corpusName("filters")}`, {}, vars)).status).toBe(403);
  });
});
