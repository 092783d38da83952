// The QuotaCounter Durable Object itself, through its real namespace binding.
import { env, evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { QuotaCounter } from "../../src/quota/quota-counter.ts";
import { awayFromMinuteEnd } from "../support/clock.ts";

function counter(name: string): DurableObjectStub<QuotaCounter> {
  return env.QUOTA_COUNTER.get(env.QUOTA_COUNTER.idFromName(name));
}

describe("QuotaCounter", () => {
  it("admits exactly the limit out of 100 concurrent charges", async () => {
    await awayFromMinuteEnd();
    const stub = counter("concurrency");
    const decisions = await Promise.all(Array.from({ length: 100 }, () => stub.charge(1, { perMinute: 7, perDay: 1000 })));
    expect(decisions.filter((d) => d.admitted)).toHaveLength(7);
    const remaining = decisions.filter((d) => d.admitted).map((d) => d.reported.remaining);
    expect(remaining.sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it("admits concurrent batches all or nothing, never over the limit", async () => {
    await awayFromMinuteEnd();
    const stub = counter("batches");
    const decisions = await Promise.all(Array.from({ length: 20 }, () => stub.charge(3, { perMinute: 10, perDay: 1000 })));
    expect(decisions.filter((d) => d.admitted)).toHaveLength(3);
    expect((await stub.charge(1, { perMinute: 10, perDay: 1000 })).admitted).toBe(true);
    expect((await stub.charge(1, { perMinute: 10, perDay: 1000 })).admitted).toBe(false);
  });

  it("keeps its counts when the object is evicted", async () => {
    await awayFromMinuteEnd();
    const stub = counter("eviction");
    const limits = { perMinute: 5, perDay: 1000 };
    for (let i = 0; i < 3; i += 1) expect((await stub.charge(1, limits)).admitted).toBe(true);
    await evictDurableObject(stub);
    expect((await stub.charge(3, limits)).admitted).toBe(false);
    expect((await stub.charge(2, limits)).admitted).toBe(true);
    await evictDurableObject(stub);
    expect((await stub.charge(1, limits)).reported).toMatchObject({ window: "minute", remaining: 0 });
  });

  it("counts the day across minutes: a fresh minute does not restore a spent day", async () => {
    await awayFromMinuteEnd();
    const stub = counter("day-window");
    const limits = { perMinute: 5, perDay: 7 };
    const now = Date.now();
    // Five calls made in the previous minute (of the same UTC day, unless it is 00:00).
    await runInDurableObject(stub, (_instance, state) => {
      const previousMinute = now - (now % 60_000) - 60_000;
      state.storage.sql.exec("INSERT INTO answer_windows VALUES ('minute', ?, 5), ('day', ?, 5)", previousMinute, now - (now % 86_400_000));
    });
    expect((await stub.charge(1, limits)).admitted).toBe(true);
    expect((await stub.charge(1, limits)).admitted).toBe(true);
    const refused = await stub.charge(1, limits);
    expect(refused.admitted).toBe(false);
    expect(refused.reported).toMatchObject({ window: "day", limit: 7, remaining: 0 });
    expect(refused.windows.find((w) => w.window === "minute")?.remaining).toBe(3);
  });

  it("takes back a refunded charge", async () => {
    await awayFromMinuteEnd();
    const stub = counter("refund");
    const limits = { perMinute: 1, perDay: 1000 };
    const decision = await stub.charge(1, limits);
    expect((await stub.charge(1, limits)).admitted).toBe(false);
    await stub.refund(decision.receipt ?? { calls: 0, minuteStart: 0, dayStart: 0 });
    expect((await stub.charge(1, limits)).admitted).toBe(true);
  });

  it("forgets everything once the day of its last charge is over", async () => {
    const stub = counter("cleanup");
    await stub.charge(1, { perMinute: 5, perDay: 5 });
    const alarm = await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm());
    const now = Date.now();
    expect(alarm).toBe(now - (now % 86_400_000) + 86_400_000);
    // Pretend the charge happened yesterday, then let the alarm run.
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.sql.exec("UPDATE answer_windows SET start_ms = start_ms - 86400000");
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const tables = await runInDurableObject(stub, (_instance, state) =>
      state.storage.sql.exec("SELECT name FROM sqlite_master WHERE name = 'answer_windows'").toArray(),
    );
    expect(tables).toEqual([]);
    // The object still counts after forgetting.
    expect((await stub.charge(5, { perMinute: 5, perDay: 5 })).admitted).toBe(true);
  });
});
