import { describe, expect, it } from "vitest";
import { type StoredWindows, chargeWindows, refundWindows } from "../../src/quota/windows.ts";

const limits = { perMinute: 5, perDay: 7 };
/** 2026-11-30T10:20:15.250Z: 44.75 s before the minute ends. */
const now = Date.UTC(2026, 10, 30, 10, 20, 15, 250);
const minuteStart = Date.UTC(2026, 10, 30, 10, 20);
const dayStart = Date.UTC(2026, 10, 30);
const nextMidnight = Date.UTC(2026, 11, 1);

/** Charges one call at a time until refused; returns how many were admitted and the final state. */
function fill(stored: StoredWindows, at: number): { admitted: number; stored: StoredWindows } {
  let admitted = 0;
  for (;;) {
    const { decision, next } = chargeWindows(stored, 1, limits, at);
    if (!next) return { admitted, stored };
    expect(decision.admitted).toBe(true);
    stored = next;
    admitted += 1;
  }
}

describe("chargeWindows", () => {
  it("admits up to the per-minute limit, then refuses until the minute ends", () => {
    const { admitted, stored } = fill({}, now);
    expect(admitted).toBe(5);
    const { decision, next } = chargeWindows(stored, 1, limits, now);
    expect(next).toBeNull();
    expect(decision).toMatchObject({
      admitted: false,
      reported: { window: "minute", limit: 5, remaining: 0, resetAt: minuteStart + 60_000 },
      retryAfterSeconds: 45,
    });
  });

  it("enforces the day window on its own: a new minute does not restore a spent day", () => {
    const first = fill({}, now);
    expect(first.admitted).toBe(5);
    const nextMinute = now + 60_000;
    const second = fill(first.stored, nextMinute);
    expect(second.admitted).toBe(2);
    const { decision } = chargeWindows(second.stored, 1, limits, nextMinute);
    expect(decision.reported).toMatchObject({ window: "day", limit: 7, remaining: 0, resetAt: nextMidnight });
    expect(decision.retryAfterSeconds).toBe(Math.ceil((nextMidnight - nextMinute) / 1000));
  });

  it("starts a fresh day at 00:00 UTC", () => {
    const spent: StoredWindows = { minute: { start: nextMidnight - 60_000, count: 5 }, day: { start: dayStart, count: 7 } };
    expect(chargeWindows(spent, 1, limits, nextMidnight - 1).decision.admitted).toBe(false);
    expect(chargeWindows(spent, 1, limits, nextMidnight).decision.admitted).toBe(true);
  });

  it("charges a batch all or nothing", () => {
    const stored: StoredWindows = { minute: { start: minuteStart, count: 3 }, day: { start: dayStart, count: 3 } };
    const refused = chargeWindows(stored, 3, limits, now);
    expect(refused.next).toBeNull();
    expect(refused.decision.reported).toMatchObject({ window: "minute", remaining: 2 });
    const admitted = chargeWindows(stored, 2, limits, now);
    expect(admitted.next).toEqual({ minute: { start: minuteStart, count: 5 }, day: { start: dayStart, count: 5 } });
  });

  it("reports the window that must reset last when both block", () => {
    const stored: StoredWindows = { minute: { start: minuteStart, count: 5 }, day: { start: dayStart, count: 7 } };
    const { decision } = chargeWindows(stored, 1, limits, now);
    expect(decision.reported.window).toBe("day");
    expect(decision.retryAfterSeconds).toBe(Math.ceil((nextMidnight - now) / 1000));
  });

  it("reports the window closest to running out when admitting", () => {
    const { decision } = chargeWindows({ day: { start: dayStart, count: 5 } }, 1, limits, now);
    expect(decision.reported).toMatchObject({ window: "day", remaining: 1 });
    expect(decision.windows).toEqual([
      { window: "minute", limit: 5, remaining: 4, resetAt: minuteStart + 60_000 },
      { window: "day", limit: 7, remaining: 1, resetAt: nextMidnight },
    ]);
  });

  it("never says to retry after 0 seconds", () => {
    const stored: StoredWindows = { minute: { start: minuteStart, count: 5 } };
    expect(chargeWindows(stored, 1, limits, minuteStart + 59_999).decision.retryAfterSeconds).toBe(1);
  });

  it("refuses everything when a limit is 0", () => {
    expect(chargeWindows({}, 1, { perMinute: 0, perDay: 10 }, now).decision.admitted).toBe(false);
  });
});

describe("refundWindows", () => {
  it("gives a charge back to the windows it went into", () => {
    const { next, decision } = chargeWindows({}, 2, limits, now);
    expect(refundWindows(next ?? {}, decision.receipt ?? { calls: 0, minuteStart: 0, dayStart: 0 })).toEqual({
      minute: { start: minuteStart, count: 0 },
      day: { start: dayStart, count: 0 },
    });
  });

  it("leaves a window that has rolled over alone", () => {
    const stored: StoredWindows = { minute: { start: minuteStart + 60_000, count: 1 }, day: { start: dayStart, count: 3 } };
    expect(refundWindows(stored, { calls: 2, minuteStart, dayStart })).toEqual({
      minute: { start: minuteStart + 60_000, count: 1 },
      day: { start: dayStart, count: 1 },
    });
  });
});
