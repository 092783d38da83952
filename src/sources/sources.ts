// Sources are data (issue 20): the rows of the `sources` table, the functions
// that keep them, and which of them are due. No transport imports here.
import type { D1Reader } from "../d1/sessions.ts";
import { AlmanacError } from "../errors.ts";
import { abandonGeneration } from "../documents/ingest/generations.ts";
import { redactUrlSecrets } from "../text/redact-urls.ts";

/** The readers a source can name, as `npm run ingest -- <kind>`. */
export const SOURCE_KINDS = ["site", "archive", "llms"] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];
export type RunOutcome = "running" | "succeeded" | "failed";

/** The counts a run reports, as the ingest report does. */
export interface RunCounts {
  added: number;
  updated: number;
  unchanged: number;
  removed: number;
  skipped: number;
}

/** A source's ingest options as given on the command line (`--include a --include b` is a list): plain JSON. */
export type SourceOptions = Record<string, string | boolean | string[]>;

/** One source and the state of its last run (times in epoch milliseconds). */
export interface Source {
  name: string;
  kind: SourceKind;
  url: string;
  options: SourceOptions;
  every: number;
  runId: string | null;
  lastRun: (RunCounts & { outcome: RunOutcome; startTime: number | null; endTime: number | null; error: string | null }) | null;
  lastSuccessTime: number | null;
  nextDue: number;
  /** The salt its webhook secret is derived from (hook-secrets.ts), and when it was set; null: no hook. Never shown. */
  hook: { salt: string; setTime: number | null } | null;
  /** The last verified push (issue 38). */
  lastPush: { time: number; commit: string | null } | null;
  /** Of the last run: pages read and written, and ms from the first push it took to its publication (null: no push). */
  lastRunPages: { read: number | null; written: number | null; pushToPublishedMs: number | null };
}

interface SourceRow {
  name: string;
  kind: SourceKind;
  url: string;
  options: string;
  every: number;
  run_id: string | null;
  outcome: RunOutcome | null;
  start_time: number | null;
  end_time: number | null;
  added: number;
  updated: number;
  unchanged: number;
  removed: number;
  skipped: number;
  error: string | null;
  last_success_time: number | null;
  next_due: number;
  hook_salt: string | null;
  hook_set_time: number | null;
  last_push_time: number | null;
  last_push_commit: string | null;
  pages_read: number | null;
  pages_written: number | null;
  push_to_published_ms: number | null;
}

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** Seconds in an interval such as "30m", "1h", "1d" or "90s". */
export function parseInterval(text: string): number {
  const match = /^(\d+)\s*([smhd])$/.exec(text.trim());
  const seconds = match ? Number(match[1]) * UNITS[match[2]!]! : 0;
  if (!match || seconds <= 0) {
    throw new AlmanacError("INVALID_ARGUMENT", `--every must be a positive number followed by s, m, h or d (e.g. 30m, 1h, 1d), not "${text}"`);
  }
  return seconds;
}

function fromRow(row: SourceRow): Source {
  return {
    name: row.name,
    kind: row.kind,
    url: row.url,
    options: JSON.parse(row.options) as SourceOptions,
    every: row.every,
    runId: row.run_id,
    lastRun:
      row.outcome === null
        ? null
        : {
            outcome: row.outcome,
            startTime: row.start_time,
            endTime: row.end_time,
            added: row.added,
            updated: row.updated,
            unchanged: row.unchanged,
            removed: row.removed,
            skipped: row.skipped,
            error: row.error,
          },
    lastSuccessTime: row.last_success_time,
    nextDue: row.next_due,
    hook: row.hook_salt === null ? null : { salt: row.hook_salt, setTime: row.hook_set_time },
    lastPush: row.last_push_time === null ? null : { time: row.last_push_time, commit: row.last_push_commit },
    lastRunPages: { read: row.pages_read, written: row.pages_written, pushToPublishedMs: row.push_to_published_ms },
  };
}

/** Adds a source, due at once; a name already taken is an error that says so. */
export async function addSource(
  db: D1Database,
  source: { name: string; kind: SourceKind; url: string; options?: SourceOptions; every: number },
  now: number,
): Promise<Source> {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(source.name)) {
    throw new AlmanacError("INVALID_ARGUMENT", `a source name is 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit, not "${source.name}"`);
  }
  if (!SOURCE_KINDS.includes(source.kind)) {
    throw new AlmanacError("INVALID_ARGUMENT", `a source's kind is one of ${SOURCE_KINDS.join(", ")}, not "${source.kind}"`);
  }
  const existing = await db.prepare("SELECT name FROM sources WHERE name = ?").bind(source.name).first();
  if (existing) throw new AlmanacError("FAILED_PRECONDITION", `a source named "${source.name}" exists already; remove it first or pick another name`);
  await db
    .prepare("INSERT INTO sources (name, kind, url, options, every, next_due) VALUES (?, ?, ?, ?, ?, ?)")
    .bind(source.name, source.kind, source.url, JSON.stringify(source.options ?? {}), source.every, now)
    .run();
  return (await getSource(db, source.name))!;
}

/** The source of that name, or null. */
export async function getSource(db: D1Reader, name: string): Promise<Source | null> {
  const row = await db.prepare("SELECT * FROM sources WHERE name = ?").bind(name).first<SourceRow>();
  return row ? fromRow(row) : null;
}

/** Every source, by name. */
export async function listSources(db: D1Reader): Promise<Source[]> {
  const { results } = await db.prepare("SELECT * FROM sources ORDER BY name").all<SourceRow>();
  return results.map(fromRow);
}

/** Removes a source; false when there was none of that name. */
export async function removeSource(db: D1Database, name: string): Promise<boolean> {
  const result = await db.prepare("DELETE FROM sources WHERE name = ?").bind(name).run();
  return result.meta.changes > 0;
}

/** The sources due at `now` and not running, soonest first (pure: the cron passes what it listed). */
export function dueSources(sources: readonly Source[], now: number): Source[] {
  return sources.filter((source) => source.runId === null && source.nextDue <= now).sort((a, b) => a.nextDue - b.nextDue);
}

/**
 * Claims the source for run `runId` if no run holds it: one UPDATE, so of two
 * runs racing for a source exactly one wins. True when this run won.
 */
export async function claimSource(db: D1Database, name: string, runId: string, now: number): Promise<boolean> {
  const result = await db
    .prepare(
      "UPDATE sources SET run_id = ?, outcome = 'running', start_time = ?, end_time = NULL, error = NULL, added = 0, updated = 0, unchanged = 0, removed = 0, skipped = 0 WHERE name = ? AND (run_id IS NULL OR run_id = ?)",
    )
    .bind(runId, now, name, runId)
    .run();
  return result.meta.changes > 0;
}

/** Records how run `runId` ended, releases the lock and sets the next due time. A run of another id changes nothing. */
export async function finishRun(
  db: D1Database,
  name: string,
  runId: string,
  end: { outcome: "succeeded"; counts: RunCounts } | { outcome: "failed"; error: string },
  now: number,
  /** When the source is due again; one interval after `now` unless said. */
  nextDue?: number,
): Promise<void> {
  const counts = end.outcome === "succeeded" ? end.counts : { added: 0, updated: 0, unchanged: 0, removed: 0, skipped: 0 };
  await db
    .prepare(
      `UPDATE sources SET run_id = NULL, outcome = ?, end_time = ?, error = ?, added = ?, updated = ?, unchanged = ?, removed = ?, skipped = ?,
         last_success_time = CASE WHEN ? = 'succeeded' THEN ? ELSE last_success_time END, next_due = coalesce(?, ? + every * 1000)
       WHERE name = ? AND run_id = ?`,
    )
    .bind(
      end.outcome,
      now,
      // An error quotes URLs, the source's own among them: never their secrets.
      end.outcome === "failed" ? redactUrlSecrets(end.error) : null,
      counts.added,
      counts.updated,
      counts.unchanged,
      counts.removed,
      counts.skipped,
      end.outcome,
      now,
      nextDue ?? null,
      now,
      name,
      runId,
    )
    .run();
}

/**
 * Ends every run still holding a source as failed with `why`, each source
 * due again at once; returns their names. `npm start` calls it: a local run
 * cannot outlive the dev server that ran it (wrangler's local Workflows do
 * not resume an instance cut off in the middle of a step), so the next
 * scheduled event starts it again instead of waiting on a run that is gone.
 */
export async function releaseInterruptedRuns(db: D1Database, why: string, now: number): Promise<string[]> {
  const held = (await listSources(db)).filter((source) => source.runId !== null);
  for (const source of held) await releaseRun(db, source, why, now);
  return held.map((source) => source.name);
}

/**
 * Ends the run holding `source` as failed with `why`: what it staged is
 * abandoned (nothing of it is published), and the source is due again at
 * once, since a lost run should not cost it a whole interval.
 */
export async function releaseRun(db: D1Database, source: Source, why: string, now: number): Promise<void> {
  if (source.runId === null) return;
  await abandonGeneration(db, source.runId);
  await finishRun(db, source.name, source.runId, { outcome: "failed", error: why }, now, now);
}

/** What a refresh Workflow instance is started with (by the cron, a push or the CLI): the source it refreshes. */
export interface RefreshParams {
  source: string;
}
