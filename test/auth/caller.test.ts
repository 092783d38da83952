import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { clientAddress, identifyCaller, presentedApiKey } from "../../src/auth/caller.ts";
import { createApiKey, revokeApiKey } from "../../src/auth/key-store.ts";
import { answerLimits } from "../../src/quota/limits.ts";

function request(init: { headers?: Record<string, string>; query?: string } = {}): Request {
  return new Request(`https://almanac.test/mcp${init.query ?? ""}`, { headers: init.headers });
}

describe("presentedApiKey", () => {
  it("reads X-Goog-Api-Key, Authorization: Bearer and ?key=", () => {
    expect(presentedApiKey(request({ headers: { "X-Goog-Api-Key": "alm_a" } }))).toEqual({ key: "alm_a", source: "X-Goog-Api-Key" });
    expect(presentedApiKey(request({ headers: { Authorization: "Bearer  alm_b " } }))).toEqual({ key: "alm_b", source: "Authorization: Bearer" });
    expect(presentedApiKey(request({ query: "?key=alm_c" }))).toEqual({ key: "alm_c", source: "?key=" });
    expect(presentedApiKey(request())).toBeNull();
  });

  it("ignores other Authorization schemes", () => {
    expect(presentedApiKey(request({ headers: { Authorization: "Basic dXNlcjpwYXNz" } }))).toBeNull();
  });

  it("accepts the same key twice but refuses two different keys or an empty one", () => {
    expect(presentedApiKey(request({ headers: { "X-Goog-Api-Key": "alm_a" }, query: "?key=alm_a" }))?.key).toBe("alm_a");
    expect(() => presentedApiKey(request({ headers: { "X-Goog-Api-Key": "alm_a", Authorization: "Bearer alm_b" } }))).toThrow(
      "two different API keys were sent, in X-Goog-Api-Key and Authorization: Bearer; send one",
    );
    expect(() => presentedApiKey(request({ query: "?key=" }))).toThrow(/the API key in \?key= is empty/);
  });

  it("refuses an empty bearer token and two different ?key= values (hardening rows 14)", () => {
    for (const authorization of ["Bearer", "Bearer ", "bearer   "]) {
      expect(() => presentedApiKey(request({ headers: { Authorization: authorization } }))).toThrow(/the API key in Authorization: Bearer is empty/);
    }
    expect(() => presentedApiKey(request({ query: "?key=alm_a&key=alm_b" }))).toThrow("two different API keys were sent, in ?key= and ?key=; send one");
    expect(presentedApiKey(request({ query: "?key=alm_a&key=alm_a" }))?.key).toBe("alm_a");
  });
});

describe("identifyCaller", () => {
  it("identifies a key holder, with the key's own limits", async () => {
    const { key, record } = await createApiKey(env.DB, { label: "alice", answerPerDay: 500 });
    const caller = await identifyCaller(env, request({ headers: { "X-Goog-Api-Key": key } }));
    expect(caller).toMatchObject({ kind: "key", keyId: record.id, label: "alice" });
    expect(answerLimits(env, caller)).toEqual({ perMinute: 10, perDay: 500 });
  });

  it("refuses an unknown key instead of treating the caller as anonymous", async () => {
    await expect(identifyCaller(env, request({ headers: { Authorization: "Bearer alm_nope" } }))).rejects.toMatchObject({
      status: "UNAUTHENTICATED",
      message: expect.stringContaining("the API key sent in Authorization: Bearer is not valid on this server (unknown key)"),
    });
  });

  it("refuses a revoked key and says it was revoked", async () => {
    const { key, record } = await createApiKey(env.DB, { label: "bob" });
    await revokeApiKey(env.DB, record.id, new Date("2026-11-30T12:00:00Z"));
    await expect(identifyCaller(env, request({ query: `?key=${key}` }))).rejects.toMatchObject({
      status: "UNAUTHENTICATED",
      message: `the API key sent in ?key= ("bob", ${record.id}) was revoked at 2026-11-30T12:00:00.000Z; ask the operator for a new key`,
    });
  });

  it("serves callers without a key on the public tier, by client address", async () => {
    const caller = await identifyCaller(env, request({ headers: { "CF-Connecting-IP": "203.0.113.9" } }));
    expect(caller).toEqual({ kind: "anonymous", address: "203.0.113.9" });
    expect(answerLimits(env, caller)).toEqual({ perMinute: 3, perDay: 20 });
  });

  it("refuses callers without a key when PUBLIC_TIER is off", async () => {
    await expect(identifyCaller({ ...env, PUBLIC_TIER: "off" }, request())).rejects.toMatchObject({
      status: "UNAUTHENTICATED",
      message: "this server requires an API key: send an API key as X-Goog-Api-Key: <key>, Authorization: Bearer <key> or ?key=<key>",
    });
  });

  it("treats a PUBLIC_TIER typo as a configuration error, not as on or off", async () => {
    await expect(identifyCaller({ ...env, PUBLIC_TIER: "false" }, request())).rejects.toMatchObject({ status: "INTERNAL" });
  });
});

describe("clientAddress", () => {
  it("counts IPv4 callers per address", () => {
    expect(clientAddress("198.51.100.7")).toBe("198.51.100.7");
  });

  it("counts IPv6 callers per /64, however the address is written", () => {
    expect(clientAddress("2001:db8:0:1:aaaa::1")).toBe("2001:db8:0:1::/64");
    expect(clientAddress("2001:0DB8:0000:0001:ffff:ffff:ffff:ffff")).toBe("2001:db8:0:1::/64");
    expect(clientAddress("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(clientAddress("::1")).toBe("0:0:0:0::/64");
  });

  it("counts IPv4-mapped IPv6 addresses as the IPv4 address", () => {
    expect(clientAddress("::ffff:198.51.100.7")).toBe("198.51.100.7");
  });

  it("puts callers without an address into one shared counter", () => {
    expect(clientAddress(null)).toBe("unknown");
    expect(clientAddress("")).toBe("unknown");
  });
});
