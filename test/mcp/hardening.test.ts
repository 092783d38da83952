// The hostile requests of the hardening issue, one regression test per row,
// through the Worker's own fetch handler: each gets a prompt answer with the
// right status, never a hang, an empty 200 or a 500, and nothing is charged
// for a call that produced no answer.
import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "../../src/auth/key-store.ts";
import { loadCorpus } from "../support/corpus.ts";
import { loadDefaultLibrary } from "../support/library-fixtures.ts";
import { MCP_URL, answerQuery, messages, openSession, post, toolCall } from "../support/mcp-http.ts";

const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "hardening-test", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** A 2026-07-28 tools/call, with the headers that must agree with it. */
function modernCall(id: string | number, name: string, args: unknown) {
  return post(
    { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args, _meta: MODERN_META } },
    { "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": name },
  );
}

type Json = Record<string, any>;

async function one(response: Response): Promise<Json> {
  const [message] = await messages(response);
  return message as Json;
}

let session: Record<string, string>;

beforeAll(async () => {
  await loadCorpus();
  session = await openSession();
});

describe("row 1: ids and batches the session could not hold", () => {
  it("refuses a 16,300-character id promptly with -32600, and charges nothing", async () => {
    const { key } = await createApiKey(env.DB, { label: "long-id", answerPerMinute: 1 });
    const keyed = await openSession({ "X-Goog-Api-Key": key });
    const refused = await post(answerQuery("x".repeat(16_300)), keyed);
    expect(refused.status).toBe(400);
    expect(await one(refused)).toMatchObject({ id: null, error: { code: -32600, message: expect.stringContaining("id is 16300 characters long; ids are at most 128") } });
    // The one call a minute this key has is still there.
    const answered = await one(await post(answerQuery(1), keyed));
    expect(answered.result.isError).toBeFalsy();
  });

  it("refuses a batch of 5,000 pings with -32600 naming the limit", async () => {
    const batch = Array.from({ length: 5000 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "ping" }));
    const refused = await post(batch, session);
    expect(refused.status).toBe(400);
    expect((await one(refused)).error.message).toContain("the batch holds 5000 messages; send at most 32 per request");
  });
});

describe("rows 2 and 4: the query string", () => {
  it("never switches the transport", async () => {
    const response = await post(toolCall(2, "search_documents", { query: "API keys" }), session, `${MCP_URL}?__agents_transport=capnweb`);
    expect(response.status).toBe(200);
    expect((await one(response)).result.structuredContent.results.length).toBeGreaterThan(0);
  });

  it("answers a URL over 2 KiB with 414", async () => {
    const response = await post(answerQuery(4), session, `${MCP_URL}?pad=${"p".repeat(17_000)}`);
    expect(response.status).toBe(414);
    expect((await one(response)).error.message).toMatch(/^INVALID_ARGUMENT: the URL is \d+ bytes long; \/mcp accepts at most 2048/);
  });
});

describe("row 3: responses posted by the client", () => {
  it.each([
    ["an error response", { jsonrpc: "2.0", id: 99, error: { code: -32601, message: "no" } }],
    ["a result response", { jsonrpc: "2.0", id: 98, result: {} }],
  ])("answers %s with 202", async (_kind, body) => {
    const response = await post(body, session);
    expect(response.status).toBe(202);
  });
});

describe("rows 5 and 6: session ids and Upgrade", () => {
  it("answers a 1,009-byte session id with 404, as an unknown session", async () => {
    const response = await post({ jsonrpc: "2.0", id: 5, method: "ping" }, { "Mcp-Session-Id": "a".repeat(1009), "MCP-Protocol-Version": "2025-06-18" });
    expect(response.status).toBe(404);
    expect((await one(response)).error.code).toBe(-32001);
  });

  it.each(["GET", "POST"])("refuses Upgrade: websocket on %s with 400", async (method) => {
    const response = await exports.default.fetch(
      new Request(MCP_URL, { method, headers: { Upgrade: "websocket", Connection: "Upgrade", ...session }, body: method === "POST" ? "{}" : undefined }),
    );
    expect(response.status).toBe(400);
    expect((await one(response)).error.message).toContain("not WebSocket");
  });
});

describe("rows 7, 8 and 12: malformed JSON-RPC", () => {
  it.each([
    ["tools/call without params", { jsonrpc: "2.0", id: 7, method: "tools/call" }, "tools/call needs params.name"],
    ["arguments that are not an object", { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "search_documents", arguments: "q" } }, "params.arguments of tools/call must be an object"],
  ])("answers %s with -32602 and a sentence", async (_kind, body, text) => {
    const response = await post(body, session);
    expect(response.status).toBe(400);
    expect(await one(response)).toMatchObject({ id: 7, error: { code: -32602, message: expect.stringContaining(text) } });
  });

  it("says an initialize without params is malformed", async () => {
    const response = await post({ jsonrpc: "2.0", id: 8, method: "initialize" });
    expect(response.status).toBe(400);
    expect((await one(response)).error.message).toContain("initialize needs params with protocolVersion");
  });

  it.each([
    [{ jsonrpc: "1.0", id: 1, method: "ping" }, 'jsonrpc must be "2.0"'],
    [{ jsonrpc: "2.0", id: 1.5, method: "ping" }, "id must be a string or an integer"],
    [{ jsonrpc: "2.0", id: null, method: "ping" }, "id must be a string or an integer"],
    [{ jsonrpc: "2.0", id: 1 }, "method must be a non-empty string"],
    [[], "the batch is empty"],
    [[{ jsonrpc: "2.0", id: 1, method: "ping" }, 42], "messages[1] is not a JSON object"],
  ])("answers %j with -32600 naming the field", async (body, text) => {
    const response = await post(body, session);
    expect(response.status).toBe(400);
    expect(await one(response)).toMatchObject({ error: { code: -32600, message: expect.stringContaining(text) } });
  });
});

describe("issue 39, row 13: invalid params to resources/list and completion/complete", () => {
  const ref = { type: "ref/resource", uri: "documents/{+path}" };
  it.each([
    ["resources/list", { cursor: 5 }, "resources/list: params.cursor must be a string"],
    ["resources/list", { cursor: { page: 2 } }, "resources/list: params.cursor must be a string"],
    ["completion/complete", undefined, "completion/complete needs params.ref"],
    ["completion/complete", { ref }, "completion/complete needs params.ref"],
    ["completion/complete", { ref: "documents/{+path}", argument: { name: "path", value: "a" } }, "completion/complete needs params.ref"],
    ["completion/complete", { ref: { type: "ref/resource" }, argument: { name: "path", value: "a" } }, "completion/complete needs params.ref"],
    ["completion/complete", { ref, argument: { name: "path", value: 7 } }, "completion/complete needs params.ref"],
    ["completion/complete", { ref, argument: { name: "path", value: "a" }, context: { arguments: "x" } }, "params.context.arguments of completion/complete must be an object"],
  ])("answers %s with params %j with -32602 and one sentence, in both eras", async (method, params, text) => {
    const legacy = await one(await post({ jsonrpc: "2.0", id: 13, method, ...(params === undefined ? {} : { params }) }, session));
    const modern = await one(
      await post({ jsonrpc: "2.0", id: 13, method, params: { ...(params ?? {}), _meta: MODERN_META } }, { "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method }),
    );
    for (const body of method === "completion/complete" && params === undefined ? [legacy] : [legacy, modern]) {
      expect(body).toMatchObject({ id: 13, error: { code: -32602, message: expect.stringContaining(text) } });
      expect(body.error.message).not.toContain("\n");
    }
  });

  it("still answers valid params", async () => {
    const completion = await one(await post({ jsonrpc: "2.0", id: 14, method: "completion/complete", params: { ref, argument: { name: "path", value: "" } } }, session));
    expect(completion.result.completion).toMatchObject({ hasMore: expect.any(Boolean) });
    const list = await one(await post({ jsonrpc: "2.0", id: 15, method: "resources/list", params: {} }, session));
    expect(Array.isArray(list.result.resources)).toBe(true);
  });
});

describe("rows 9 and 10: tool names and arguments", () => {
  it.each(["toString", "__proto__", "rm_rf"])("answers tool %s with NOT_FOUND in both eras", async (name) => {
    const legacy = await one(await post(toolCall(9, name, {}), session));
    const modern = await one(await modernCall(9, name, {}));
    for (const body of [legacy, modern]) {
      expect(body.error).toMatchObject({ code: -32602, message: expect.stringMatching(new RegExp(`^NOT_FOUND: no tool named "${name}" on this server; its tools are search_documents`)) });
    }
  });

  it("says one true thing when names is a string", async () => {
    const result = (await one(await post(toolCall(10, "get_documents", { names: "documents/".repeat(200) }), session))).result;
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toBe("INVALID_ARGUMENT: names: expected an array, not a string");
  });
});

describe("row 11: methods /mcp does not serve", () => {
  it.each(["PUT", "PATCH", "HEAD"])("answers %s with 405 and Allow", async (method) => {
    const response = await exports.default.fetch(new Request(MCP_URL, { method }));
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET, POST, DELETE, OPTIONS");
  });
});

describe("row 15: no charge without an answer", () => {
  it.each(["2025 session", "2026-07-28"])("gives back the charge of an answer_query with invalid arguments (%s)", async (era) => {
    const { key } = await createApiKey(env.DB, { label: `bad-args-${era}`, answerPerMinute: 1 });
    const keyed = { "X-Goog-Api-Key": key };
    const call = era === "2026-07-28"
      ? (id: number, args: unknown) => post({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "answer_query", arguments: args, _meta: MODERN_META } }, { ...keyed, "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "answer_query" })
      : await openSession(keyed).then((headers) => (id: number, args: unknown) => post(toolCall(id, "answer_query", args as Record<string, unknown>), headers));
    const invalid = await one(await call(1, { query: "" }));
    expect(invalid.result.isError).toBe(true);
    // The refund runs after the response; the counter answers requests in order, so the next charge sees it.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const valid = await call(2, { query: "How do I revoke an API key?" });
    expect(valid.status).toBe(200);
    expect((await one(valid)).result.isError).toBeFalsy();
  });
});

// Issue 24: every echo bounded. What a caller sent is quoted at most ~200 characters, then cut with
// a marker saying how long it was, on every door; the response stays small whatever was sent.
describe("issue 24: echoes of what a caller sent are bounded on every door", () => {
  const HUGE = 3_000_000;
  const huge = "x".repeat(HUGE);
  const marker = `…(${HUGE} characters)`;
  /** Small, and quoting at most 200 of the characters sent. */
  function expectBounded(text: string, marked: string = marker) {
    expect(text.length).toBeLessThan(20_000);
    expect(text).toContain(marked);
    expect(text).not.toContain("x".repeat(201));
  }
  const eras = {
    "2025 session": (id: number, name: string, args: unknown) => post(toolCall(id, name, args as Record<string, unknown>), session),
    "2026-07-28": (id: number, name: string, args: unknown) => modernCall(id, name, args),
  };

  describe.each(Object.entries(eras))("over MCP (%s)", (_, call) => {
    it("quotes a 3 MB query_library_get id", async () => {
      const response = await call(30, "query_library_get", { id: huge });
      expectBounded(await response.text());
    });

    it("quotes a 3 MB unknown argument name", async () => {
      const response = await call(31, "search_documents", { query: "keys", [huge]: 1 });
      expectBounded(await response.text());
    });

    it("quotes a 3 MB params key, in the errors and in unknown_params", async () => {
      const [entry] = await loadDefaultLibrary();
      const response = await call(32, "query_library_get", { id: entry?.id, params: { [huge]: "1" }, format: "json" });
      const [message] = (await messages(response.clone())) as Json[];
      expectBounded(await response.text());
      expect(message?.result.structuredContent.unknown_params).toEqual([`${"x".repeat(200)}${marker}`]);
    });

    it("quotes a 10,000-character unknown tool name, in the message and in error.data.name", async () => {
      const name = "t".repeat(10_000);
      const body = await one(await call(33, name, {}));
      expect(body.error.data.name).toBe(`${"t".repeat(200)}…(10000 characters)`);
      expect(JSON.stringify(body).length).toBeLessThan(2_000);
    });
  });

  it.each(["2025 session", "2026-07-28"])("quotes a 3 MB resource uri in error.data.uri (%s)", async (era) => {
    const uri = `https://${huge}`;
    const message = { jsonrpc: "2.0", id: 34, method: "resources/read", params: era === "2026-07-28" ? { uri, _meta: MODERN_META } : { uri } };
    const headers = era === "2026-07-28" ? { "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "resources/read", "Mcp-Name": uri } : session;
    const body = await one(await post(message, headers));
    expect(JSON.stringify(body).length).toBeLessThan(2_000);
    expect(body.error.message).toContain(`…(${uri.length} characters)`);
  });

  it("bounds the SDK's own error when the Mcp-Name header disagrees with a 10,000-character tool name", async () => {
    const name = "n".repeat(10_000);
    const response = await post(
      { jsonrpc: "2.0", id: 35, method: "tools/call", params: { name, arguments: {}, _meta: MODERN_META } },
      { "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "search_documents" },
    );
    const text = await response.text();
    expect(response.status).toBe(400);
    expect(text.length).toBeLessThan(2_000);
    expect(text).toContain("…(10000 characters)");
    expect(text).not.toContain("n".repeat(201));
  });

  it.each([
    ["/mcp", MCP_URL, { method: "POST", body: "{}" }],
    ["REST", "https://almanac.test/v1/documents:searchDocumentChunks?query=keys", {}],
    ["the landing page", "https://almanac.test/", {}],
  ])("quotes a 60 KB Origin header (%s)", async (_, url, init) => {
    const origin = `https://${"o".repeat(60_000)}.example`;
    const response = await exports.default.fetch(new Request(url, { ...init, headers: { Origin: origin, "Content-Type": "application/json", Accept: "application/json, text/event-stream" } }));
    expect(response.status).toBe(403);
    const text = await response.text();
    expect(text.length).toBeLessThan(20_000);
    expect(text).not.toContain("o".repeat(201));
  });

  it("quotes a 3 MB id on the landing page's library panel", async () => {
    const response = await exports.default.fetch(new Request(`https://almanac.test/try/library?id=${"x".repeat(1_000_000)}`));
    const text = await response.text();
    expect(text).not.toContain("x".repeat(201));
  });

  it("quotes a 3 MB unknown REST parameter name and batchGet name", async () => {
    for (const path of [`/v1/documents:searchDocumentChunks?query=keys&${"p".repeat(100_000)}=1`, `/v1/documents:batchGet?names=documents/${"d".repeat(100_000)}`]) {
      const text = await (await exports.default.fetch(new Request(`https://almanac.test${path}`))).text();
      expect(text.length).toBeLessThan(2_000);
    }
  });
});
