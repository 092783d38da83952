// The answer_query quota on /mcp, end to end through the Worker's fetch
// handler: real auth against D1, real QuotaCounter and McpAgent Durable Objects.
import { createExecutionContext, env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { Hono } from "hono";
import { describe, expect, it, vi } from "vitest";
import { authenticateCaller } from "../../src/http/authenticate.ts";
import { createApiKey, revokeApiKey } from "../../src/auth/key-store.ts";
import { app } from "../../src/index.ts";
import { readJsonRpcMessage } from "../../src/mcp/json-rpc-message.ts";
import { jsonRpcErrorHandler, mcpAnswerQuota } from "../../src/mcp/routes.ts";
import { awayFromMinuteEnd } from "../support/clock.ts";
import { MCP_URL, answerQuery, messages, openSession, post, toolCall } from "../support/mcp-http.ts";

async function keyHeaders(options: { answerPerMinute?: number; answerPerDay?: number; tier?: string } = {}) {
  const { key } = await createApiKey(env.DB, { label: "quota-test", ...options });
  return { "X-Goog-Api-Key": key };
}

/** Fires `count` answer_query calls at once on one session and sorts the responses. */
async function burst(session: Record<string, string>, count: number) {
  const responses = await Promise.all(Array.from({ length: count }, (_, i) => post(answerQuery(i + 1), session)));
  return {
    admitted: responses.filter((response) => response.status === 200),
    refused: responses.filter((response) => response.status === 429),
    other: responses.filter((response) => response.status !== 200 && response.status !== 429),
  };
}

describe("answer_query quota on /mcp", () => {
  it("admits exactly 5 of 40 concurrent calls with a per-minute limit of 5 and refuses 35 with 429", async () => {
    await awayFromMinuteEnd();
    const session = await openSession(await keyHeaders({ answerPerMinute: 5 }));
    const { admitted, refused, other } = await burst(session, 40);
    const retryAfter = refused.map((response) => Number(response.headers.get("Retry-After")));
    console.log(
      `40 concurrent answer_query, per-minute limit 5: ${admitted.length} × 200, ${refused.length} × 429, ${other.length} other; ` +
        `Retry-After ${Math.min(...retryAfter)}–${Math.max(...retryAfter)} s`,
    );
    expect(admitted).toHaveLength(5);
    expect(refused).toHaveLength(35);
    expect(other).toHaveLength(0);
    for (const response of refused) {
      const seconds = Number(response.headers.get("Retry-After"));
      expect(seconds).toBeGreaterThanOrEqual(1);
      expect(seconds).toBeLessThanOrEqual(60);
      expect(response.headers.get("RateLimit-Limit")).toBe("5");
      expect(response.headers.get("RateLimit-Remaining")).toBe("0");
      expect(response.headers.get("RateLimit-Reset")).toBe(String(seconds));
    }
    // Every admitted call was answered, and each told the caller what was left.
    const remaining = admitted.map((response) => response.headers.get("RateLimit-Remaining")).sort();
    expect(remaining).toEqual(["0", "1", "2", "3", "4"]);
    for (const response of admitted) {
      const [reply] = await messages(response);
      expect(reply).toHaveProperty("result.structuredContent.answerText");
    }
  });

  it("answers a refused call with a JSON-RPC error for the same id that names the limit, the reset and search_documents", async () => {
    await awayFromMinuteEnd();
    const session = await openSession(await keyHeaders({ answerPerMinute: 1 }));
    expect((await post(answerQuery(1), session)).status).toBe(200);
    const refused = await post(answerQuery("call-2"), session);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("Content-Type")).toMatch(/^application\/json/);
    const body = (await refused.json()) as { jsonrpc: string; id: unknown; error: { code: number; message: string; data: unknown } };
    expect(body).toMatchObject({ jsonrpc: "2.0", id: "call-2", error: { code: -32000, data: { status: "RESOURCE_EXHAUSTED", window: "minute", limit: 1, remaining: 0 } } });
    expect(body.error.message.replace(/resets in \d+ s \(at [^)]+\)/, "resets in N s (at T)")).toMatchInlineSnapshot(
      `"RESOURCE_EXHAUSTED: answer_query quota exhausted: this API key ("quota-test") may make 1 call per minute and has none left; the per-minute limit resets in N s (at T). Use search_documents instead (then get_documents for whole pages): it costs no quota."`,
    );
  });

  it("keeps the session working after a refusal", async () => {
    await awayFromMinuteEnd();
    const session = await openSession(await keyHeaders({ answerPerMinute: 0 }));
    expect((await post(answerQuery(1), session)).status).toBe(429);
    const search = await post(toolCall(2, "search_documents", { query: "quota" }), session);
    expect(search.status).toBe(200);
    expect((await messages(search))[0]).toMatchObject({ id: 2, result: { structuredContent: { results: [] } } });
  });

  it("does not let one caller's spent quota affect another caller", async () => {
    await awayFromMinuteEnd();
    const spent = await openSession(await keyHeaders({ answerPerMinute: 2 }));
    const other = await openSession(await keyHeaders({ answerPerMinute: 2 }));
    const anonymous = await openSession({ "CF-Connecting-IP": "198.51.100.20" });
    const first = await burst(spent, 6);
    expect(first.admitted).toHaveLength(2);
    expect((await burst(other, 6)).admitted).toHaveLength(2);
    expect((await burst(anonymous, 6)).admitted).toHaveLength(3);
  });

  it("gives anonymous callers the public-tier allowance per IP address", async () => {
    await awayFromMinuteEnd();
    const a = await openSession({ "CF-Connecting-IP": "203.0.113.40" });
    // A new session from the same address does not bring a new allowance.
    const aAgain = await openSession({ "CF-Connecting-IP": "203.0.113.40" });
    const b = await openSession({ "CF-Connecting-IP": "203.0.113.41" });
    const [first, second, third] = await Promise.all([burst(a, 10), burst(aAgain, 10), burst(b, 10)]);
    expect(first.admitted.length + second.admitted.length).toBe(3);
    expect(third.admitted).toHaveLength(3);
    expect(third.refused[0]?.headers.get("RateLimit-Limit")).toBe("3");
  });

  it("enforces the per-day limit independently of the per-minute limit", async () => {
    await awayFromMinuteEnd();
    const session = await openSession(await keyHeaders({ answerPerMinute: 10, answerPerDay: 3 }));
    const { admitted, refused } = await burst(session, 8);
    expect(admitted).toHaveLength(3);
    expect(refused).toHaveLength(5);
    const response = refused[0] as Response;
    expect(response.headers.get("RateLimit-Limit")).toBe("3");
    const secondsToMidnight = Math.ceil((86_400_000 - (Date.now() % 86_400_000)) / 1000);
    expect(Number(response.headers.get("Retry-After"))).toBeGreaterThan(secondsToMidnight - 60);
    const [error] = await messages(response);
    expect(error).toHaveProperty("error.message", expect.stringContaining("may make 3 calls per UTC day and has none left; the daily limit resets in"));
  });

  it("admits a batch only if every answer_query in it fits, and charges nothing for a refused batch", async () => {
    await awayFromMinuteEnd();
    const session = await openSession(await keyHeaders({ answerPerMinute: 3 }));
    const batch = [answerQuery(1), toolCall(2, "search_documents", { query: "keys" }), answerQuery(3)];
    const first = await post(batch, session);
    expect(first.status).toBe(200);
    expect(first.headers.get("RateLimit-Remaining")).toBe("1");
    const replies = await messages(first);
    expect(replies.map((reply) => reply.id).sort()).toEqual([1, 2, 3]);

    const refused = await post(batch, session);
    expect(refused.status).toBe(429);
    const errors = await messages(refused);
    expect(errors.map((error) => error.id)).toEqual([1, 2, 3]);
    expect(errors[0]).toHaveProperty("error.message", expect.stringContaining("has 1 left and this request needs 2"));

    // Nothing was charged for the refused batch: the one call left is still there.
    expect((await post(answerQuery(4), session)).status).toBe(200);
    expect((await post(answerQuery(5), session)).status).toBe(429);
  });

  it("refuses a batch larger than the limit and says to send fewer calls", async () => {
    await awayFromMinuteEnd();
    const session = await openSession(await keyHeaders({ answerPerMinute: 2 }));
    const refused = await post([answerQuery(1), answerQuery(2), answerQuery(3)], session);
    expect(refused.status).toBe(429);
    expect((await messages(refused))[0]).toHaveProperty(
      "error.message",
      expect.stringContaining("this request makes 3 answer_query calls, more than the 2 per minute that this API key (\"quota-test\") may make"),
    );
  });

  it("never charges other tools or other MCP requests", async () => {
    await awayFromMinuteEnd();
    const session = await openSession(await keyHeaders({ answerPerMinute: 1 }));
    const others = await Promise.all([
      post({ jsonrpc: "2.0", id: 1, method: "tools/list" }, session),
      ...Array.from({ length: 5 }, (_, i) => post(toolCall(10 + i, "search_documents", { query: "quota" }), session)),
      post(toolCall(20, "get_documents", { names: ["documents/almanac.dev/docs/nope"] }), session),
      // A notification is never executed, so it is not an answer.
      post({ jsonrpc: "2.0", method: "tools/call", params: { name: "answer_query", arguments: { query: "x" } } }, session),
    ]);
    for (const response of others) {
      expect(response.status).toBeLessThan(300);
      // Searches and gets report their own per-minute limit (100;w=60), never the answer quota's day window.
      expect(response.headers.get("RateLimit-Policy") ?? "").not.toContain("w=86400");
      await response.text();
    }
    expect((await post(answerQuery(30), session)).status).toBe(200);
  });

  it("gives the charge back when the MCP session refuses the request", async () => {
    await awayFromMinuteEnd();
    const headers = await keyHeaders({ answerPerMinute: 1 });
    const unknownSession = await post(answerQuery(1), { ...headers, "Mcp-Session-Id": "no-such-session", "MCP-Protocol-Version": "2025-06-18" });
    expect(unknownSession.status).toBe(404);
    const session = await openSession(headers);
    expect((await post(answerQuery(2), session)).status).toBe(200);
  });

  it("gives the charge back when the MCP session fails with a 5xx or throws", async () => {
    // Regression: only 4xx answers were refunded, so a session failing with 5xx still cost quota.
    await awayFromMinuteEnd();
    // A stand-in for the session that fails as X-Session says: the gate in front of it is the real one.
    const gated = new Hono<{ Bindings: Env }>();
    gated.onError(jsonRpcErrorHandler);
    gated.use("/mcp", readJsonRpcMessage(), authenticateCaller(), mcpAnswerQuota());
    gated.post("/mcp", (c) => {
      if (c.req.header("X-Session") === "throws") throw new Error("session storage unavailable");
      if (c.req.header("X-Session") === "unavailable") return c.text("upstream unavailable", 503);
      return c.json({ jsonrpc: "2.0", id: 1, result: {} });
    });
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const headers = await keyHeaders({ answerPerMinute: 1 });
    const call = (session: string) =>
      gated.request("/mcp", { method: "POST", headers: { ...headers, "X-Session": session }, body: JSON.stringify(answerQuery(1)) }, env);
    expect((await call("unavailable")).status).toBe(503);
    expect((await call("throws")).status).toBe(500);
    expect(logged).toHaveBeenCalledWith("POST /mcp failed:", expect.objectContaining({ message: "session storage unavailable" }));
    logged.mockRestore();
    // Both charges came back: the caller's one call a minute is still there.
    expect((await call("answers")).status).toBe(200);
    expect((await call("answers")).status).toBe(429);
  });

  it("counts no answer_query calls when ENABLED_TOOLS leaves answer_query out", async () => {
    // Regression: the call failed as an unknown tool (HTTP 200) yet was charged.
    await awayFromMinuteEnd();
    const headers = await keyHeaders({ answerPerMinute: 1 });
    const session = await openSession(headers);
    const withoutAnswers = { ...env, ENABLED_TOOLS: "search_documents, get_documents" };
    const request = (id: number) =>
      new Request(MCP_URL, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...session },
        body: JSON.stringify(answerQuery(id)),
      });
    // The gate reads ENABLED_TOOLS from the env it is given; the session's own env still offers every tool.
    for (const id of [1, 2, 3]) {
      const response = await app.fetch(request(id), withoutAnswers, createExecutionContext());
      expect(response.status).not.toBe(429);
      expect(response.headers.has("RateLimit-Limit")).toBe(false);
      await response.text();
    }
    // None of them was counted: the caller's one call a minute is still there.
    expect((await post(answerQuery(4), session)).status).toBe(200);
    expect((await post(answerQuery(5), session)).status).toBe(429);
  });

  it("lets a key's own limit beat its tier's", async () => {
    await awayFromMinuteEnd();
    const tierOnly = await openSession(await keyHeaders({ tier: "public" }));
    const overridden = await openSession(await keyHeaders({ tier: "public", answerPerMinute: 6 }));
    expect((await burst(tierOnly, 10)).admitted).toHaveLength(3);
    expect((await burst(overridden, 10)).admitted).toHaveLength(6);
  });
});

describe("API keys on /mcp", () => {
  it("refuses an unknown key with 401 on every request, never downgrading to the public tier", async () => {
    const response = await post(answerQuery(1), { "X-Goog-Api-Key": "alm_not-a-key" });
    expect(response.status).toBe(401);
    expect(response.headers.get("WWW-Authenticate")).toBe('Bearer realm="almanac"');
    expect(await response.json()).toMatchObject({
      jsonrpc: "2.0",
      id: 1,
      error: { message: expect.stringContaining("UNAUTHENTICATED: the API key sent in X-Goog-Api-Key is not valid on this server") },
    });
    const get = await exports.default.fetch(new Request(`${MCP_URL}?key=alm_not-a-key`, { headers: { Accept: "text/event-stream" } }));
    expect(get.status).toBe(401);
  });

  it("answers a refused batch with one 401 error per request id, and a single request with its own id", async () => {
    // Regression: a 401 was always one error with id null, which a client cannot match to its requests.
    const unknownKey = { "X-Goog-Api-Key": "alm_not-a-key" };
    const batch = await post([answerQuery("a"), { jsonrpc: "2.0", method: "notifications/initialized" }, toolCall(7, "search_documents", { query: "x" })], unknownKey);
    expect(batch.status).toBe(401);
    const errors = (await batch.json()) as { id: unknown; error: { data: unknown } }[];
    expect(errors.map((error) => error.id)).toEqual(["a", 7]);
    for (const error of errors) expect(error).toMatchObject({ jsonrpc: "2.0", error: { code: -32000, data: { status: "UNAUTHENTICATED" } } });
    const single = await post(toolCall("only", "search_documents", { query: "x" }), unknownKey);
    expect(await single.json()).toMatchObject({ jsonrpc: "2.0", id: "only", error: { data: { status: "UNAUTHENTICATED" } } });
  });

  it("refuses a revoked key with 401, even on a session opened before the revocation", async () => {
    const { key, record } = await createApiKey(env.DB, { label: "soon-revoked" });
    const session = await openSession({ Authorization: `Bearer ${key}` });
    await revokeApiKey(env.DB, record.id);
    const response = await post(toolCall(1, "search_documents", { query: "keys" }), session);
    expect(response.status).toBe(401);
    expect(await response.json()).toHaveProperty("error.message", expect.stringContaining(`("soon-revoked", ${record.id}) was revoked at`));
  });

  it("answers keyless callers 401 when PUBLIC_TIER is off, and still serves key holders", async () => {
    const closed = { ...env, PUBLIC_TIER: "off" };
    const request = (headers: Record<string, string>) =>
      new Request(MCP_URL, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 0,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
        }),
      });
    const keyless = await app.fetch(request({}), closed, createExecutionContext());
    expect(keyless.status).toBe(401);
    expect(JSON.stringify(await keyless.json())).toContain("this server requires an API key");
    const keyed = await app.fetch(request(await keyHeaders()), closed, createExecutionContext());
    expect(keyed.status).toBe(200);
    await keyed.text();
    // A browser's CORS preflight carries no key and must not be refused for it.
    const preflight = new Request(MCP_URL, { method: "OPTIONS", headers: { Origin: "https://almanac.test", "Access-Control-Request-Method": "POST" } });
    expect((await app.fetch(preflight, closed, createExecutionContext())).status).not.toBe(401);
  });
});
