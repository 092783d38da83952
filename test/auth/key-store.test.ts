// API keys against a real local D1: only hashes are stored, revocation sticks.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { generateApiKey, hashApiKey, isKeyId } from "../../src/auth/api-keys.ts";
import { createApiKey, findApiKeyByHash, listApiKeys, revokeApiKey, setKeyAudiences } from "../../src/auth/key-store.ts";
import { AlmanacError } from "../../src/errors.ts";

describe("API keys", () => {
  it("are 256-bit random strings with a recognisable prefix and a separate public id", () => {
    const { key, id } = generateApiKey();
    expect(key).toMatch(/^alm_[A-Za-z0-9_-]{43}$/);
    expect(isKeyId(id)).toBe(true);
    expect(isKeyId(key)).toBe(false);
    expect(generateApiKey().key).not.toBe(key);
  });

  it("are hashed with SHA-256", async () => {
    // FIPS 180-2 test vector.
    expect(await hashApiKey("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("are stored only as their hash, with label, tier, limits and creation time", async () => {
    const now = new Date("2026-11-30T10:00:00Z");
    const { key, record } = await createApiKey(env.DB, { label: " ci-bot ", answerPerMinute: 60 }, now);
    expect(record).toEqual({
      id: record.id,
      label: "ci-bot",
      tier: "standard",
      answerPerMinute: 60,
      answerPerDay: null,
      audiences: [],
      searchPerMinute: null,
      getPerMinute: null,
      createdAt: "2026-11-30T10:00:00.000Z",
      revokedAt: null,
    });
    const rows = await env.DB.prepare("SELECT * FROM api_keys WHERE id = ?1").bind(record.id).all();
    expect(JSON.stringify(rows.results)).not.toContain(key);
    expect(rows.results[0]?.key_hash).toBe(await hashApiKey(key));
    expect(await findApiKeyByHash(env.DB, await hashApiKey(key))).toEqual(record);
  });

  it("refuses a missing label, an unknown tier and negative limits", async () => {
    await expect(createApiKey(env.DB, { label: "  " })).rejects.toThrow(/needs a label/);
    await expect(createApiKey(env.DB, { label: "x", tier: "gold" })).rejects.toThrow('unknown tier "gold" (legal: standard, public)');
    await expect(createApiKey(env.DB, { label: "x", answerPerDay: -1 })).rejects.toBeInstanceOf(AlmanacError);
  });

  it("carry audiences, set at creation and changed later by id", async () => {
    const { record } = await createApiKey(env.DB, { label: "ops-bot", audiences: ["ops"] });
    expect(record.audiences).toEqual(["ops"]);
    expect((await setKeyAudiences(env.DB, record.id, ["ops", "sre"]))?.audiences).toEqual(["ops", "sre"]);
    expect((await listApiKeys(env.DB)).find((key) => key.id === record.id)?.audiences).toEqual(["ops", "sre"]);
    expect((await setKeyAudiences(env.DB, record.id, []))?.audiences).toEqual([]);
    expect(await setKeyAudiences(env.DB, "key_000000000000", ["ops"])).toBeNull();
  });

  it("lists keys oldest first", async () => {
    const a = await createApiKey(env.DB, { label: "a" }, new Date("2026-01-01T00:00:00Z"));
    const b = await createApiKey(env.DB, { label: "b", tier: "public" }, new Date("2026-01-02T00:00:00Z"));
    const ids = (await listApiKeys(env.DB)).map((record) => record.id);
    expect(ids.indexOf(a.record.id)).toBeLessThan(ids.indexOf(b.record.id));
  });

  it("revokes by id or by the key itself, and keeps the first revocation time", async () => {
    const byId = await createApiKey(env.DB, { label: "by-id" });
    const first = await revokeApiKey(env.DB, byId.record.id, new Date("2026-11-30T11:00:00Z"));
    expect(first?.revokedAt).toBe("2026-11-30T11:00:00.000Z");
    const again = await revokeApiKey(env.DB, byId.record.id, new Date("2026-12-01T11:00:00Z"));
    expect(again?.revokedAt).toBe("2026-11-30T11:00:00.000Z");

    const byKey = await createApiKey(env.DB, { label: "by-key" });
    expect((await revokeApiKey(env.DB, byKey.key))?.id).toBe(byKey.record.id);
    expect(await revokeApiKey(env.DB, "key_000000000000")).toBeNull();
  });
});
