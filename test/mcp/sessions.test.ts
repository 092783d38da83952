// Issue 24: 2025-era sessions are bound to the caller that opened it, capped per caller, and end
// when idle, releasing their Durable Object storage. Through the Worker's own fetch handler.
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "../../src/auth/key-store.ts";
import { sessionCap } from "../../src/mcp/session-binding.ts";
import { MAX_SESSIONS_PER_CALLER, SESSION_IDLE_MS, sessionObjectName } from "../../src/mcp/session-registry.ts";
import { loadCorpus } from "../support/corpus.ts";
import { MCP_URL, messages, openSession, post, toolCall } from "../support/mcp-http.ts";

type Headers = Record<string, string>;

const NOT_FOUND = { jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null };
const ping = (id: number) => ({ jsonrpc: "2.0", id, method: "ping" });

let keyA: Headers;
let keyC: Headers;

beforeAll(async () => {
  await loadCorpus();
  keyA = { "X-Goog-Api-Key": (await createApiKey(env.DB, { label: "session-a" })).key };
  keyC = { "X-Goog-Api-Key": (await createApiKey(env.DB, { label: "session-c" })).key };
});

/** The session headers without the caller's own credentials, to send them as someone else. */
function sessionOnly(session: Headers): Headers {
  return { "Mcp-Session-Id": session["Mcp-Session-Id"] ?? "", "MCP-Protocol-Version": session["MCP-Protocol-Version"] ?? "" };
}

function remove(session: Headers): Promise<Response> {
  return exports.default.fetch(new Request(MCP_URL, { method: "DELETE", headers: session }));
}

/** The caller's registry, to move its clock: tests cannot wait an hour. */
function registryFor(identity: string) {
  return env.SESSION_REGISTRY.get(env.SESSION_REGISTRY.idFromName(identity));
}

async function ageSessions(identity: string, byMs: number): Promise<void> {
  await runInDurableObject(registryFor(identity), (_instance, state) => {
    state.storage.sql.exec("UPDATE sessions SET last_ms = last_ms - ?", byMs);
  });
}

describe("a session belongs to the caller that opened it", () => {
  it("answers its own caller, and another key, no key or another address as an unknown session (404)", async () => {
    const session = await openSession(keyA);
    expect((await post(ping(1), session)).status).toBe(200);
    for (const other of [{ ...sessionOnly(session), ...keyC }, sessionOnly(session), { ...sessionOnly(session), "CF-Connecting-IP": "198.51.100.7" }]) {
      const response = await post(ping(2), other);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual(NOT_FOUND);
    }
    const [answer] = await messages(await post(toolCall(3, "search_documents", { query: "API keys" }), session));
    expect(answer).toMatchObject({ id: 3, result: { structuredContent: { results: expect.any(Array) } } });
  });

  it("refuses another caller's DELETE with 404 and keeps serving the session", async () => {
    const session = await openSession(keyA);
    expect((await remove({ ...sessionOnly(session), ...keyC })).status).toBe(404);
    expect((await remove(sessionOnly(session))).status).toBe(404);
    expect((await post(ping(4), session)).status).toBe(200);
    expect((await remove(session)).status).toBe(204);
    expect((await post(ping(5), session)).status).toBe(404);
  });

  it("answers a session id nobody opened with 404", async () => {
    const response = await post(ping(6), { ...keyA, "Mcp-Session-Id": "f".repeat(64), "MCP-Protocol-Version": "2025-06-18" });
    expect(response.status).toBe(404);
  });
});

describe("each caller holds a bounded number of sessions", () => {
  it(`opens ${MAX_SESSIONS_PER_CALLER}, refuses one more with 429 saying why, and opens again once one ends`, async () => {
    const caller = { "CF-Connecting-IP": "203.0.113.50" };
    const sessions = await Promise.all(Array.from({ length: MAX_SESSIONS_PER_CALLER }, () => openSession(caller)));
    const refused = await post({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } }, caller);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(SESSION_IDLE_MS / 1000 - 60);
    const [body] = await messages(refused);
    expect((body as { error: { message: string } }).error.message).toMatch(
      new RegExp(`^RESOURCE_EXHAUSTED: this caller already has ${MAX_SESSIONS_PER_CALLER} open MCP sessions, the most one caller may hold \\(${MAX_SESSIONS_PER_CALLER}\\); end sessions you no longer use with DELETE /mcp`),
    );
    // Another caller is not affected.
    await openSession({ "CF-Connecting-IP": "203.0.113.51" });
    expect((await remove(sessions[0] as Headers)).status).toBe(204);
    await openSession(caller);
  });
});

describe("idle sessions end", () => {
  it("answers a session idle past the limit with 404 and deletes its Durable Object's storage", async () => {
    const caller = { "CF-Connecting-IP": "203.0.113.60" };
    const session = await openSession(caller);
    const sessionId = session["Mcp-Session-Id"] ?? "";
    const object = env.MCP_OBJECT.get(env.MCP_OBJECT.idFromName(sessionObjectName(sessionId)));
    expect(await runInDurableObject(object, (_instance, state) => state.storage.get("initializeRequest"))).toBeDefined();
    await ageSessions("ip:203.0.113.60", SESSION_IDLE_MS + 1_000);
    expect((await post(ping(7), session)).status).toBe(404);
    // The session's own alarm then deletes everything it stored.
    await runDurableObjectAlarm(object);
    expect(await runInDurableObject(object, async (_instance, state) => (await state.storage.list()).size)).toBe(0);
  });

  it("ends idle sessions on the registry's alarm, with no request needed, and leaves no registry storage", async () => {
    const caller = { "CF-Connecting-IP": "203.0.113.61" };
    const session = await openSession(caller);
    const registry = registryFor("ip:203.0.113.61");
    expect(await runInDurableObject(registry, (_instance, state) => state.storage.getAlarm())).toBeGreaterThan(Date.now());
    await ageSessions("ip:203.0.113.61", SESSION_IDLE_MS + 1_000);
    expect(await runDurableObjectAlarm(registry)).toBe(true);
    expect(await runInDurableObject(registry, async (_instance, state) => (await state.storage.list()).size)).toBe(0);
    const object = env.MCP_OBJECT.get(env.MCP_OBJECT.idFromName(sessionObjectName(session["Mcp-Session-Id"] ?? "")));
    expect(await runInDurableObject(object, (_instance, state) => state.storage.get("initializeRequest"))).toBeUndefined();
  });

  it("keeps a session that is used", async () => {
    const session = await openSession({ "CF-Connecting-IP": "203.0.113.62" });
    await ageSessions("ip:203.0.113.62", SESSION_IDLE_MS - 60_000);
    expect((await post(ping(8), session)).status).toBe(200);
    await ageSessions("ip:203.0.113.62", 120_000);
    expect((await post(ping(9), session)).status).toBe(200);
  });
});

describe("MCP_SESSIONS_PER_CALLER", () => {
  it("sets the cap, and an unusable value means the default", () => {
    expect(sessionCap({ MCP_SESSIONS_PER_CALLER: "3" })).toBe(3);
    expect(sessionCap({ MCP_SESSIONS_PER_CALLER: "" })).toBe(MAX_SESSIONS_PER_CALLER);
    expect(sessionCap({ MCP_SESSIONS_PER_CALLER: "0" })).toBe(MAX_SESSIONS_PER_CALLER);
    expect(sessionCap({ MCP_SESSIONS_PER_CALLER: "many" })).toBe(MAX_SESSIONS_PER_CALLER);
  });
});
