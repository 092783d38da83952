// Peeking at a caller's allowance (what the landing page shows) reads the
// same QuotaCounter the 429 uses and charges nothing.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Caller } from "../../src/auth/caller.ts";
import { callerIdentity } from "../../src/auth/caller.ts";
import { answerAllowance, chargeAnswerQuery } from "../../src/quota/gate.ts";
import { awayFromMinuteEnd } from "../support/clock.ts";

const anonymous = (address: string): Caller => ({ kind: "anonymous", address });

describe("answerAllowance", () => {
  it("reports both windows with the caller's limits, and what charges have used", async () => {
    await awayFromMinuteEnd();
    const caller = anonymous("192.0.2.10");
    const fresh = await answerAllowance(env, caller);
    expect(fresh.limits).toEqual({ perMinute: 3, perDay: 20 });
    expect(fresh.windows.map(({ window, limit, remaining }) => ({ window, limit, remaining }))).toEqual([
      { window: "minute", limit: 3, remaining: 3 },
      { window: "day", limit: 20, remaining: 20 },
    ]);
    await chargeAnswerQuery(env, caller, 2);
    expect((await answerAllowance(env, caller)).windows.map((window) => window.remaining)).toEqual([1, 18]);
  });

  it("charges nothing, however often it is asked", async () => {
    await awayFromMinuteEnd();
    const caller = anonymous("192.0.2.11");
    for (let i = 0; i < 5; i += 1) await answerAllowance(env, caller);
    const decisions = await Promise.all([1, 2, 3].map(() => chargeAnswerQuery(env, caller, 1)));
    expect(decisions.every((decision) => decision.admitted)).toBe(true);
    expect((await chargeAnswerQuery(env, caller, 1)).admitted).toBe(false);
  });

  it("leaves no storage behind for a caller that was never charged", async () => {
    const caller = anonymous("192.0.2.12");
    await answerAllowance(env, caller);
    const stub = env.QUOTA_COUNTER.get(env.QUOTA_COUNTER.idFromName(callerIdentity(caller)));
    const tables = await runInDurableObject(stub, (_instance, state) => state.storage.sql.exec("SELECT name FROM sqlite_master").toArray());
    expect(tables).toEqual([]);
    // It still counts afterwards.
    expect((await chargeAnswerQuery(env, caller, 1)).admitted).toBe(true);
    expect((await answerAllowance(env, caller)).windows.map((window) => window.remaining)).toEqual([2, 19]);
  });
});
