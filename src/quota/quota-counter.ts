import { DurableObject } from "cloudflare:workers";
import type { AnswerLimits, CallKind } from "./limits.ts";
import {
  type ChargeReceipt,
  type QuotaDecision,
  type StoredWindows,
  type WindowCount,
  type WindowName,
  type WindowStatus,
  WINDOW_MS,
  chargeMinute,
  chargeWindows,
  refundWindows,
  windowStart,
} from "./windows.ts";

interface WindowRow extends Record<string, SqlStorageValue> {
  name: string;
  start_ms: number;
  count: number;
}

/**
 * The counter of one caller identity (`idFromName` of an API key id or a
 * client address): its answer_query quota, and its searches and gets per
 * minute (chargeCalls). A Durable Object runs one request at a time and
 * each charge below reads, decides and writes without awaiting in between, so
 * no two charges interleave: the count is exact under any concurrency. The
 * counts live in the object's SQLite storage, so they survive eviction and
 * restarts; the output gate holds each answer until its write is durable.
 */
export class QuotaCounter extends DurableObject<Env> {
  /** False until the table exists; again after alarm() erased the storage. */
  private schemaReady = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.ensureSchema();
  }

  /** Admits and counts `calls` answer_query calls if both windows have room for all of them; otherwise counts nothing. */
  async charge(calls: number, limits: AnswerLimits): Promise<QuotaDecision> {
    const now = Date.now();
    const { decision, next } = chargeWindows(this.load(), calls, limits, now);
    if (next) {
      this.store(next);
      // Once the day is over the counts mean nothing; let the object forget them (see alarm()).
      await this.ctx.storage.setAlarm(windowStart("day", now) + WINDOW_MS.day);
    }
    return decision;
  }

  /**
   * Admits and counts `calls` calls of a kind (searches, gets) if the current
   * minute has room for all of them under `limit`; otherwise counts nothing.
   */
  async chargeCalls(kind: CallKind, calls: number, limit: number): Promise<QuotaDecision> {
    const now = Date.now();
    this.ensureSchema();
    const row = this.ctx.storage.sql.exec<WindowRow>("SELECT name, start_ms, count FROM call_windows WHERE name = ?", kind).toArray()[0];
    const { decision, next } = chargeMinute(row ? { start: row.start_ms, count: row.count } : undefined, calls, limit, now);
    if (next) {
      this.storeCalls(kind, next);
      // The same day's-end alarm as answer_query's (setAlarm replaces, never adds): the counts are forgotten with the day.
      await this.ctx.storage.setAlarm(windowStart("day", now) + WINDOW_MS.day);
    }
    return decision;
  }

  /**
   * Both windows as a charge would see them now, charging nothing (what the
   * landing page shows a caller). A counter that holds no counts is left with
   * no storage at all: every visitor's address is looked at, and an empty
   * table per address would otherwise stay forever (alarm() only runs after a charge).
   */
  async allowance(limits: AnswerLimits): Promise<{ windows: WindowStatus[]; now: number }> {
    const now = Date.now();
    const stored = this.load();
    const counting = this.ctx.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM call_windows").one().n > 0;
    if (!stored.minute && !stored.day && !counting) {
      await this.ctx.storage.deleteAll();
      this.schemaReady = false;
    }
    return { windows: chargeWindows(stored, 0, limits, now).decision.windows, now };
  }

  /** Gives back a charge whose request was never served. */
  refund(receipt: ChargeReceipt): void {
    this.store(refundWindows(this.load(), receipt));
  }

  /**
   * Runs after the UTC day of the last charge. Anonymous callers are counted
   * per address, so without this every address ever seen would keep a stored
   * object forever.
   */
  override async alarm(): Promise<void> {
    const today = windowStart("day", Date.now());
    if ((this.load().day?.start ?? 0) >= today) return;
    await this.ctx.storage.deleteAll();
    this.schemaReady = false;
  }

  private ensureSchema(): void {
    if (this.schemaReady) return;
    this.ctx.storage.sql.exec(
      `CREATE TABLE IF NOT EXISTS answer_windows (
         name TEXT PRIMARY KEY,     -- 'minute' | 'day'
         start_ms INTEGER NOT NULL, -- when the window began, epoch ms
         count INTEGER NOT NULL     -- answer_query calls admitted in it
       )`,
    );
    this.ctx.storage.sql.exec(
      `CREATE TABLE IF NOT EXISTS call_windows (
         name TEXT PRIMARY KEY,     -- 'search' | 'get': the calendar minute of each
         start_ms INTEGER NOT NULL, -- when the minute began, epoch ms
         count INTEGER NOT NULL     -- calls admitted in it
       )`,
    );
    this.schemaReady = true;
  }

  private load(): StoredWindows {
    this.ensureSchema();
    const stored: StoredWindows = {};
    for (const row of this.ctx.storage.sql.exec<WindowRow>("SELECT name, start_ms, count FROM answer_windows")) {
      if (row.name === "minute" || row.name === "day") stored[row.name] = { start: row.start_ms, count: row.count };
    }
    return stored;
  }

  private storeCalls(kind: CallKind, window: WindowCount): void {
    this.writeWindow("call_windows", kind, window);
  }

  private store(windows: StoredWindows): void {
    this.ensureSchema();
    for (const [window, held] of Object.entries(windows) as [WindowName, { start: number; count: number }][]) this.writeWindow("answer_windows", window, held);
  }

  /** One window's start and count, written over the last (both tables have the same columns). */
  private writeWindow(table: "answer_windows" | "call_windows", name: string, window: { start: number; count: number }): void {
    this.ctx.storage.sql.exec(
      `INSERT INTO ${table} (name, start_ms, count) VALUES (?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET start_ms = excluded.start_ms, count = excluded.count`,
      name,
      window.start,
      window.count,
    );
  }
}
