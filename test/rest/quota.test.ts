// One caller, one answer allowance, whichever door it uses: POST
// /v1:answerQuery and MCP answer_query draw from the same QuotaCounter.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createApiKey, revokeApiKey } from "../../src/auth/key-store.ts";
import { loadCorpus } from "../support/corpus.ts";
import { awayFromMinuteEnd } from "../support/clock.ts";
import { answerQuery as mcpAnswerQuery, openSession, post } from "../support/mcp-http.ts";
import { answerQuery, rest, restJson } from "../support/rest.ts";

beforeAll(async () => {
  await loadCorpus();
});

const QUESTION = { query: "How is the answer_query quota counted?" };

async function newKey(answerPerMinute: number): Promise<string> {
  return (await createApiKey(env.DB, { label: "rest-quota", answerPerMinute })).key;
}

describe("the answerQuery quota", () => {
  it("admits exactly the limit of concurrent calls shared between REST and MCP, and refuses the rest with 429 RESOURCE_EXHAUSTED", async () => {
    await awayFromMinuteEnd();
    const key = await newKey(6);
    const headers = { "X-Goog-Api-Key": key };
    const session = await openSession(headers);
    const calls = [
      ...Array.from({ length: 10 }, () => answerQuery(QUESTION, headers).then((response) => ({ door: "rest", response }))),
      ...Array.from({ length: 10 }, (_, i) => post(mcpAnswerQuery(i + 1), session).then((response) => ({ door: "mcp", response }))),
    ];
    const results = await Promise.all(calls);
    const admitted = results.filter(({ response }) => response.status === 200);
    const refused = results.filter(({ response }) => response.status === 429);
    console.log(`10 REST + 10 MCP concurrent answers, limit 6/min: ${admitted.length} × 200 (${admitted.filter((r) => r.door === "rest").length} REST), ${refused.length} × 429`);
    expect(admitted).toHaveLength(6);
    expect(refused).toHaveLength(14);
    const restRefusal = refused.find(({ door }) => door === "rest")?.response;
    if (!restRefusal) throw new Error("no REST call was refused");
    expect(Number(restRefusal.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    expect(restRefusal.headers.get("RateLimit-Limit")).toBe("6");
    expect(restRefusal.headers.get("RateLimit-Remaining")).toBe("0");
    expect(await restRefusal.json()).toEqual({
      error: { code: 429, status: "RESOURCE_EXHAUSTED", message: expect.stringMatching(/^answer_query quota exhausted: this API key \("rest-quota"\) may make 6 calls per minute and has none left.*Use search_documents instead/) },
    });
  });

  it("charges REST answers where MCP sees them: a key spent over REST is refused on MCP", async () => {
    await awayFromMinuteEnd();
    const headers = { Authorization: `Bearer ${await newKey(2)}` };
    expect((await answerQuery(QUESTION, headers)).status).toBe(200);
    const admitted = await answerQuery(QUESTION, headers);
    expect(admitted.headers.get("RateLimit-Remaining")).toBe("0");
    expect((await post(mcpAnswerQuery(1), await openSession(headers))).status).toBe(429);
  });

  it("charges nothing for search, get and batchGet, nor for an answerQuery refused as invalid", async () => {
    await awayFromMinuteEnd();
    const key = await newKey(1);
    for (let i = 0; i < 5; i += 1) {
      expect((await rest(`/v1/documents:searchDocumentChunks?query=quota&key=${key}`)).status).toBe(200);
      expect((await rest(`/v1/documents/almanac.dev/docs/filters?key=${key}`)).status).toBe(200);
      expect((await rest(`/v1/documents:batchGet?names=documents/almanac.dev/docs/filters&key=${key}`)).status).toBe(200);
    }
    expect((await answerQuery({ query: "" }, { "X-Goog-Api-Key": key })).status).toBe(400);
    expect((await answerQuery({ query: "x", filter: "nonsense" }, { "X-Goog-Api-Key": key })).status).toBe(400);
    expect((await answerQuery(QUESTION, { "X-Goog-Api-Key": key })).status).toBe(200);
    expect((await answerQuery(QUESTION, { "X-Goog-Api-Key": key })).status).toBe(429);
  });

  it("counts anonymous callers per address, with the public limits", async () => {
    await awayFromMinuteEnd();
    const from = (ip: string) => answerQuery(QUESTION, { "CF-Connecting-IP": ip }, { QUOTA_PUBLIC_ANSWER_PER_MINUTE: "2" });
    expect((await Promise.all([from("203.0.113.5"), from("203.0.113.5"), from("203.0.113.5")])).map((r) => r.status).sort()).toEqual([200, 200, 429]);
    expect((await from("203.0.113.6")).status).toBe(200);
  });
});

describe("callers", () => {
  it.each([
    ["an unknown key", { "X-Goog-Api-Key": "alm_unknown" }, /^the API key sent in X-Goog-Api-Key is not valid on this server \(unknown key\)/],
    ["an empty key", { "X-Goog-Api-Key": "" }, /^the API key in X-Goog-Api-Key is empty/],
  ])("answers %s with 401 UNAUTHENTICATED in Google's body, on reads too", async (_, headers, message) => {
    for (const response of [await rest("/v1/documents:searchDocumentChunks?query=quota", { headers }), await answerQuery(QUESTION, headers)]) {
      expect(response.status).toBe(401);
      expect(response.headers.get("WWW-Authenticate")).toBe('Bearer realm="almanac"');
      expect(await response.json()).toEqual({ error: { code: 401, status: "UNAUTHENTICATED", message: expect.stringMatching(message) } });
    }
  });

  it("refuses a revoked key", async () => {
    const key = await newKey(10);
    await revokeApiKey(env.DB, key);
    const { status, body } = await restJson(`/v1/documents:searchDocumentChunks?query=quota&key=${key}`);
    expect(status).toBe(401);
    expect(body).toEqual({ error: { code: 401, status: "UNAUTHENTICATED", message: expect.stringContaining("was revoked at") } });
  });

  it("requires a key of every caller when PUBLIC_TIER is off", async () => {
    const off = { PUBLIC_TIER: "off" };
    expect((await rest("/v1/documents:searchDocumentChunks?query=quota", {}, off)).status).toBe(401);
    expect((await rest(`/v1/documents:searchDocumentChunks?query=quota&key=${await newKey(10)}`, {}, off)).status).toBe(200);
  });
});
