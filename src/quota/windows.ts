// The arithmetic of the answer_query quota: two fixed windows, the calendar
// minute and the UTC day, charged together or not at all. Pure, so that the
// QuotaCounter Durable Object only has to load, call and store.
import type { AnswerLimits } from "./limits.ts";

export type WindowName = "minute" | "day";

/** Window lengths. Epoch time has no leap seconds, so multiples of a day start at 00:00 UTC. */
export const WINDOW_MS: Record<WindowName, number> = { minute: 60_000, day: 86_400_000 };

/** What a counter holds for one window: when it started and how many calls it admitted. */
export interface WindowCount {
  start: number;
  count: number;
}

export type StoredWindows = Partial<Record<WindowName, WindowCount>>;

/** One window as a caller sees it. */
export interface WindowStatus {
  window: WindowName;
  limit: number;
  /** Calls left in this window (after this charge, when admitted). */
  remaining: number;
  /** When the window ends, in epoch milliseconds. */
  resetAt: number;
}

/** Which windows an admitted charge went into, so that it can be refunded. */
export interface ChargeReceipt {
  calls: number;
  minuteStart: number;
  dayStart: number;
}

/** The outcome of one check-and-charge. */
export interface QuotaDecision {
  admitted: boolean;
  /** How many answer_query calls were asked for. */
  calls: number;
  now: number;
  /**
   * The window to report in RateLimit-* headers: when refused, the one that
   * must reset before the request can pass; when admitted, the one closest
   * to running out.
   */
  reported: WindowStatus;
  windows: WindowStatus[];
  /** Only when refused: whole seconds until the request could pass (never 0). */
  retryAfterSeconds?: number;
  /** Only when admitted. */
  receipt?: ChargeReceipt;
}

/** The start of the window that contains `now`. */
export function windowStart(window: WindowName, now: number): number {
  return now - (now % WINDOW_MS[window]);
}

/**
 * Checks whether `calls` more answer_query calls fit in both windows and, if
 * they do, charges all of them; if any does not fit, charges nothing. Counts
 * from windows that have ended are ignored.
 *
 * @example chargeWindows({}, 1, { perMinute: 10, perDay: 50 }, Date.now()).decision.admitted // true
 */
export function chargeWindows(
  stored: StoredWindows,
  calls: number,
  limits: AnswerLimits,
  now: number,
): { decision: QuotaDecision; next: Record<WindowName, WindowCount> | null } {
  const minute = currentWindow("minute", stored, limits.perMinute, now);
  const day = currentWindow("day", stored, limits.perDay, now);
  const blocking = [minute, day].filter((w) => w.used + calls > w.limit);
  if (blocking.length > 0) {
    // Every blocking window must reset before the request can pass: report the last to do so.
    const latest = blocking.reduce((a, b) => (b.resetAt > a.resetAt ? b : a));
    return {
      decision: {
        admitted: false,
        calls,
        now,
        reported: status(latest, 0),
        windows: [status(minute, 0), status(day, 0)],
        retryAfterSeconds: Math.max(1, Math.ceil((latest.resetAt - now) / 1000)),
      },
      next: null,
    };
  }
  const statuses = [status(minute, calls), status(day, calls)] as const;
  // Closest to running out; on a tie the later reset, which is when the caller is really free again.
  const reported = statuses[1].remaining <= statuses[0].remaining ? statuses[1] : statuses[0];
  return {
    decision: {
      admitted: true,
      calls,
      now,
      reported,
      windows: [...statuses],
      receipt: { calls, minuteStart: minute.start, dayStart: day.start },
    },
    next: { minute: { start: minute.start, count: minute.used + calls }, day: { start: day.start, count: day.used + calls } },
  };
}

interface CurrentWindow {
  window: WindowName;
  start: number;
  resetAt: number;
  used: number;
  limit: number;
}

function currentWindow(window: WindowName, stored: StoredWindows, limit: number, now: number): CurrentWindow {
  const start = windowStart(window, now);
  const held = stored[window];
  return { window, start, resetAt: start + WINDOW_MS[window], used: held?.start === start ? held.count : 0, limit };
}

/**
 * Gives back an admitted charge that was never served (the MCP session
 * refused the request). Only the windows the charge went into are reduced:
 * a window that has since rolled over already forgot it.
 */
export function refundWindows(stored: StoredWindows, receipt: ChargeReceipt): StoredWindows {
  const refunded: StoredWindows = {};
  for (const window of ["minute", "day"] as const) {
    const held = stored[window];
    if (!held) continue;
    const chargedStart = window === "minute" ? receipt.minuteStart : receipt.dayStart;
    refunded[window] = held.start === chargedStart ? { start: held.start, count: Math.max(0, held.count - receipt.calls) } : held;
  }
  return refunded;
}

function status(w: CurrentWindow, charged: number): WindowStatus {
  return { window: w.window, limit: w.limit, remaining: Math.max(0, w.limit - w.used - charged), resetAt: w.resetAt };
}

/**
 * Checks whether `calls` more calls of a kind fit in the caller's current
 * calendar minute and, if they do, counts them (all or none): the per-minute
 * limits on searches and gets, which have no daily window.
 *
 * @example chargeMinute(undefined, 1, 100, Date.now()).decision.reported.remaining // 99
 */
export function chargeMinute(held: WindowCount | undefined, calls: number, limit: number, now: number): { decision: QuotaDecision; next: WindowCount | null } {
  const minute = currentWindow("minute", held ? { minute: held } : {}, limit, now);
  if (minute.used + calls > limit) {
    const refused = status(minute, 0);
    return {
      decision: { admitted: false, calls, now, reported: refused, windows: [refused], retryAfterSeconds: Math.max(1, Math.ceil((minute.resetAt - now) / 1000)) },
      next: null,
    };
  }
  const admitted = status(minute, calls);
  return { decision: { admitted: true, calls, now, reported: admitted, windows: [admitted] }, next: { start: minute.start, count: minute.used + calls } };
}
