// The per-minute limits on searches and gets, through the Worker's own fetch
// handler on every door (MCP, REST, the landing page), counted by the real
// QuotaCounter Durable Object: refused with the answer quota's 429 body and
// headers once a caller's minute is spent, per tier and per key.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "../../src/auth/key-store.ts";
import { callLimit } from "../../src/quota/limits.ts";
import { loadCorpus } from "../support/corpus.ts";
import { rest } from "../support/rest.ts";
import { awayFromMinuteEnd } from "../support/clock.ts";
import { messages, openSession, post, toolCall } from "../support/mcp-http.ts";

beforeAll(async () => {
  await loadCorpus();
});

const SEARCH = "/v1/documents:searchDocumentChunks?query=quota";

async function keyed(limits: { searchPerMinute?: number; getPerMinute?: number; tier?: string }) {
  return { "X-Goog-Api-Key": (await createApiKey(env.DB, { label: "read-limits", ...limits })).key };
}

/** Sends `count` requests one after another and returns their statuses. */
async function statuses(count: number, send: (i: number) => Promise<Response>): Promise<number[]> {
  const seen: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const response = await send(i);
    await response.arrayBuffer();
    seen.push(response.status);
  }
  return seen;
}

/** Checks a 429 has the headers a client waits by, and returns its Google error body. */
async function expectRefusal(refused: Response): Promise<{ error: { code: number; status: string; message: string } }> {
  expect(refused.status).toBe(429);
    const seconds = Number(refused.headers.get("Retry-After"));
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(60);
    expect(refused.headers.get("RateLimit-Remaining")).toBe("0");
    expect(refused.headers.get("RateLimit-Reset")).toBe(String(seconds));
    const body = (await refused.json()) as { error: { code: number; status: string; message: string } };
    expect(body.error).toMatchObject({ code: 429, status: "RESOURCE_EXHAUSTED" });
  return body;
}

describe("the limits' defaults", () => {
  it("are Google's 100 a minute for a key, fewer for an anonymous address, and a key's own where it has one", () => {
    const anonymous = { kind: "anonymous" as const, address: "203.0.113.9" };
    const key = { kind: "key" as const, keyId: "key_x", label: "x", tier: "standard", answerPerMinute: null, answerPerDay: null, audiences: [] };
    expect(callLimit({}, key, "search")).toBe(100);
    expect(callLimit({}, key, "get")).toBe(100);
    expect(callLimit({}, anonymous, "search")).toBe(30);
    expect(callLimit({ QUOTA_PUBLIC_GET_PER_MINUTE: "7" }, anonymous, "get")).toBe(7);
    expect(callLimit({}, { ...key, tier: "public" }, "search")).toBe(30);
    expect(callLimit({}, { ...key, searchPerMinute: 500 }, "search")).toBe(500);
    expect(() => callLimit({ QUOTA_SEARCH_PER_MINUTE: "lots" }, key, "search")).toThrow(/QUOTA_SEARCH_PER_MINUTE/);
  });
});

describe("search and get limits on REST", () => {
  it("refuse an anonymous address's searches past its tier's limit with 429, the answer quota's headers and Google's error body", async () => {
    await awayFromMinuteEnd();
    const vars = { QUOTA_PUBLIC_SEARCH_PER_MINUTE: "3" };
    const address = { "CF-Connecting-IP": "203.0.113.21" };
    const first = await rest(SEARCH, { headers: address }, vars);
    expect(first.status).toBe(200);
    expect(first.headers.get("RateLimit-Limit")).toBe("3");
    expect(first.headers.get("RateLimit-Remaining")).toBe("2");
    expect(first.headers.get("RateLimit-Policy")).toBe("3;w=60");
    await first.arrayBuffer();
    expect(await statuses(4, () => rest(SEARCH, { headers: address }, vars))).toEqual([200, 200, 429, 429]);
    const body = await expectRefusal(await rest(SEARCH, { headers: address }, vars));
    expect(body.error.message).toContain("your IP address (anonymous, public tier) may make 3 searches per minute");
    // Another address, and gets, have their own counts.
    expect((await rest(SEARCH, { headers: { "CF-Connecting-IP": "203.0.113.22" } }, vars)).status).toBe(200);
    expect((await rest("/v1/documents/almanac.dev/docs/filters", { headers: address }, vars)).status).toBe(200);
  });

  it("count a key by its own limit, documents.get and batchGet alike", async () => {
    await awayFromMinuteEnd();
    const headers = await keyed({ getPerMinute: 2 });
    const gets = await statuses(3, (i) => rest(i === 1 ? "/v1/documents:batchGet?names=documents/almanac.dev/docs/filters" : "/v1/documents/almanac.dev/docs/filters", { headers }));
    expect(gets).toEqual([200, 200, 429]);
    // Searches are a separate count.
    expect((await rest(SEARCH, { headers })).status).toBe(200);
  });
});

describe("search and get limits on /mcp", () => {
  it("count every search_documents and get_documents call of a batch, and refuse the message whole with a JSON-RPC error", async () => {
    await awayFromMinuteEnd();
    const session = await openSession(await keyed({ searchPerMinute: 3 }));
    const batch = [toolCall(1, "search_documents", { query: "quota" }), toolCall(2, "search_documents", { query: "keys" })];
    const admitted = await post(batch, session);
    expect(admitted.status).toBe(200);
    expect(admitted.headers.get("RateLimit-Remaining")).toBe("1");
    await admitted.text();
    const refused = await post(batch, session);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("Retry-After")).toMatch(/^\d+$/);
    const replies = await messages(refused);
    expect(replies.map((reply) => reply.id)).toEqual([1, 2]);
    expect(replies[0]).toMatchObject({ error: { code: -32000, data: { status: "RESOURCE_EXHAUSTED", window: "minute", limit: 3, remaining: 1 } } });
    expect((replies[0] as { error: { message: string } }).error.message).toContain('this API key ("read-limits") may make 3 searches per minute');
    // The one search left still passes, and get_documents is counted apart.
    expect((await post(toolCall(3, "search_documents", { query: "quota" }), session)).status).toBe(200);
    expect((await post(toolCall(4, "get_documents", { names: ["documents/almanac.dev/docs/filters"] }), session)).status).toBe(200);
  });
});

describe("search limits on the landing page", () => {
  it("count a search from the panel, not the empty panel, and answer a spent minute with 429", async () => {
    await awayFromMinuteEnd();
    const vars = { QUOTA_PUBLIC_SEARCH_PER_MINUTE: "1" };
    const headers = { "CF-Connecting-IP": "203.0.113.23", Accept: "text/html" };
    expect((await rest("/try/search", { headers }, vars)).status).toBe(200);
    expect((await rest("/try/search?query=quota", { headers }, vars)).status).toBe(200);
    const refused = await rest("/try/search?query=keys", { headers }, vars);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("RateLimit-Limit")).toBe("1");
    expect(refused.headers.get("Retry-After")).toMatch(/^\d+$/);
    expect(await refused.text()).toContain("may make 1 search");
  });
});

describe("get limits on /llms.txt and the pages' Markdown", () => {
  it("count each as one get: an anonymous address past its allowance gets the 429 of every other door, while a key from the same address reads on", async () => {
    await awayFromMinuteEnd();
    const vars = { QUOTA_PUBLIC_GET_PER_MINUTE: "3" };
    const address = { "CF-Connecting-IP": "203.0.113.24" };
    const page = "/documents/almanac.dev/docs/filters.md";
    const first = await rest(page, { headers: address }, vars);
    expect(first.status).toBe(200);
    expect(first.headers.get("RateLimit-Limit")).toBe("3");
    expect(first.headers.get("RateLimit-Remaining")).toBe("2");
    expect(first.headers.get("RateLimit-Policy")).toBe("3;w=60");
    await first.arrayBuffer();
    // /llms.txt and documents.get draw on the same minute as the Markdown.
    expect(await statuses(4, (i) => rest(["/llms.txt", "/v1/documents/almanac.dev/docs/filters", page, "/llms.txt"][i] ?? page, { headers: address }, vars))).toEqual([200, 200, 429, 429]);
    const body = await expectRefusal(await rest(page, { headers: address }, vars));
    expect(body.error.message).toContain("your IP address (anonymous, public tier) may make 3 gets per minute");
    // The REST door's refusal has the very same form.
    const restRefused = (await (await rest("/v1/documents/almanac.dev/docs/filters", { headers: address }, vars)).json()) as { error: Record<string, unknown> };
    expect(Object.keys(restRefused.error).sort()).toEqual(Object.keys(body.error).sort());
    // A key is its own caller, whatever address it comes from.
    const key = await keyed({});
    expect(await statuses(3, (i) => rest(i === 1 ? "/llms.txt" : page, { headers: { ...address, ...key } }, vars))).toEqual([200, 200, 200]);
  });
});
