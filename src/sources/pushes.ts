/**
 * Verified pushes and the runs they start (issue 38). A push is recorded
 * (once: its delivery again is a replay), then starts the source's refresh
 * Workflow unless a run holds the source; that run, when it ends, starts the
 * next one for the pushes that came meanwhile. A run takes every push not
 * yet taken when it begins, so a burst of pushes is one run, reading the
 * newest commit.
 */
import { AlmanacError } from "../errors.ts";
import { RefusalError } from "../http/refusal.ts";
import type { Push, PushChanges } from "./hooks.ts";
import type { RefreshParams } from "./sources.ts";
import { claimSource, finishRun } from "./sources.ts";

/** How long a delivery is remembered: GitHub and GitLab sign no time, so their redeliveries are told apart by id for this long. */
const DELIVERY_KEPT_MS = 30 * 24 * 3600_000;

/** What a run was asked to do by the pushes it took. */
interface TakenPushes {
  /** How many pushes, the first one's arrival and the newest commit. */
  count: number;
  firstReceived: number;
  commit: string | null;
  /** The union of their changes; absent lists: a whole run (some push asked for one). */
  changes: PushChanges;
}

/** What accepting a push did: a run started now, or one is going and the push waits for it to end. */
type PushAccepted = { run: "started"; runId: string } | { run: "queued"; runningId: string };

/**
 * Records a verified push of source `name` and starts its run unless one is
 * going. Throws AlmanacError (409) when its delivery was accepted before: a
 * replay changes nothing.
 */
export async function acceptPush(db: D1Database, workflow: Workflow<RefreshParams>, name: string, provider: string, push: Push, now: number): Promise<PushAccepted> {
  try {
    // One transaction: a replay (the delivery's primary key taken) records nothing.
    await db.batch([
      db.prepare("DELETE FROM hook_deliveries WHERE received_time < ?1").bind(now - DELIVERY_KEPT_MS),
      db.prepare("INSERT INTO hook_deliveries (source, delivery, received_time) VALUES (?1, ?2, ?3)").bind(name, push.delivery, now),
      db
        .prepare("INSERT INTO source_pushes (source, received_time, provider, commit_id, changes) VALUES (?1, ?2, ?3, ?4, ?5)")
        .bind(name, now, provider, push.commit, JSON.stringify(push.changes)),
      db.prepare("UPDATE sources SET last_push_time = ?2, last_push_commit = ?3 WHERE name = ?1").bind(name, now, push.commit),
    ]);
  } catch (error) {
    if (!/UNIQUE constraint failed: hook_deliveries/.test(`${String(error)} ${String((error as { cause?: unknown })?.cause)}`)) throw error;
    throw new RefusalError(
      new AlmanacError("FAILED_PRECONDITION", `this delivery (${push.delivery.slice(0, 80)}) was accepted before: a replay changes nothing`),
      { httpStatus: 409 },
    );
  }
  const started = await startPendingRun(db, workflow, name, now);
  if (started) return { run: "started", runId: started };
  const holder = await db.prepare("SELECT run_id FROM sources WHERE name = ?1").bind(name).first<string | null>("run_id");
  return { run: "queued", runningId: holder ?? "" };
}

/**
 * Starts a run of source `name` when pushes wait for one and no run holds
 * it; returns its id, or null. Called on a push and by a run that ends:
 * a push recorded before the run's lock is released is seen by the run's
 * call, one recorded after finds the source free, so none waits for the cron.
 */
export async function startPendingRun(db: D1Database, workflow: Workflow<RefreshParams>, name: string, now: number): Promise<string | null> {
  const waiting = await db.prepare("SELECT 1 AS n FROM source_pushes WHERE source = ?1 AND run_id IS NULL LIMIT 1").bind(name).first();
  if (!waiting) return null;
  const runId = `run-${crypto.randomUUID()}`;
  if (!(await claimSource(db, name, runId, now))) return null;
  try {
    await workflow.create({ id: runId, params: { source: name } });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await finishRun(db, name, runId, { outcome: "failed", error: `the refresh Workflow could not be started: ${message}` }, now, now);
    throw new AlmanacError("UNAVAILABLE", "the push was recorded but its run could not be started; the next scheduled event runs it", error);
  }
  return runId;
}

/**
 * Run `runId` takes every push of `name` not yet taken (safe to repeat: a
 * retried step gets the same pushes back). Null when there was none (a
 * scheduled run).
 */
export async function takePushes(db: D1Database, name: string, runId: string): Promise<TakenPushes | null> {
  const [, taken] = await db.batch<{ received_time: number; commit_id: string | null; changes: string }>([
    db.prepare("UPDATE source_pushes SET run_id = ?1 WHERE source = ?2 AND run_id IS NULL").bind(runId, name),
    db.prepare("SELECT received_time, commit_id, changes FROM source_pushes WHERE run_id = ?1 ORDER BY id").bind(runId),
  ]);
  const rows = taken?.results ?? [];
  if (rows.length === 0) return null;
  const all = rows.map((row) => JSON.parse(row.changes) as PushChanges);
  const whole = all.some((changes) => changes.paths === undefined && changes.urls === undefined);
  const union = (field: keyof PushChanges) => [...new Set(all.flatMap((changes) => changes[field] ?? []))];
  const changes: PushChanges = whole
    ? {}
    : { ...(all.some((c) => c.paths) ? { paths: union("paths") } : {}), ...(all.some((c) => c.urls) ? { urls: union("urls") } : {}) };
  return {
    count: rows.length,
    firstReceived: Math.min(...rows.map((row) => row.received_time)),
    commit: [...rows].reverse().find((row) => row.commit_id !== null)?.commit_id ?? null,
    changes,
  };
}

/** Pushes taken by runs long over: kept a while for a look, then deleted. */
export async function sweepPushes(db: D1Database, now: number): Promise<void> {
  await db.prepare("DELETE FROM source_pushes WHERE run_id IS NOT NULL AND received_time < ?1").bind(now - DELIVERY_KEPT_MS).run();
}

/** What run `runId` of `name` read and wrote, recorded before finishRun releases the source (a run of another id changes nothing). */
export async function recordRunPages(
  db: D1Database,
  name: string,
  runId: string,
  pages: { read: number | null; written: number | null; pushToPublishedMs: number | null },
): Promise<void> {
  await db
    .prepare("UPDATE sources SET pages_read = ?3, pages_written = ?4, push_to_published_ms = ?5 WHERE name = ?1 AND run_id = ?2")
    .bind(name, runId, pages.read, pages.written, pages.pushToPublishedMs)
    .run();
}
