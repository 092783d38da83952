/**
 * A run's pages become visible all at once (issue 20). A run — `npm run
 * ingest`, or a source's refresh Workflow over many steps — stages its pages
 * (stage-pages.ts) in tables no reader looks at (migration 0011), then
 * publishes them (publish-generation.ts) into documents and chunks in one D1
 * batch, which D1 runs as one transaction: search, get, answers, resources
 * and REST see the base URI's previous pages or all of the run's, never a
 * mix. This module is the run's life: begun, guarded while it writes,
 * abandoned when it fails, is killed (the next run of its base URI wins) or
 * is silent for STALE_RUN_MS, and its staged rows swept then.
 */
import { D1_LIMITS } from "../../d1/limits.ts";

/** A run that wrote nothing for this long is taken as dead: a live run stages a batch every few seconds, a Workflow step retries within minutes. */
export const STALE_RUN_MS = 60 * 60 * 1000;

/** The run's generation is no longer the one being written (a newer run of its base URI started, or it was silent too long). */
export class AbandonedRunError extends Error {
  constructor(id: string) {
    super(
      `run ${id} was abandoned before it published: a newer run of the same base URI started, or it wrote nothing for ${STALE_RUN_MS / 60_000} minutes; ` +
        "nothing of it was published and the previous pages are still served; run it again",
    );
    this.name = "AbandonedRunError";
  }
}

/**
 * The first statement of every batch a run writes: it fails (a NOT NULL
 * violation, which rolls the whole batch back) unless generation ?1 is still
 * being written, so an abandoned run can neither stage nor publish anything.
 */
const STILL_WRITING_GUARD = `INSERT INTO generations (id, base_uri, state, started_time, touched_time)
  SELECT NULL, NULL, 'writing', '', '' WHERE NOT EXISTS (SELECT 1 FROM generations WHERE id = ?1 AND state = 'writing')`;

function isGuardFailure(error: unknown): boolean {
  return /NOT NULL constraint failed: generations\./.test(`${String(error)} ${String((error as { cause?: unknown })?.cause)}`);
}

/** Runs a run's batch behind the guard; an abandoned run gets AbandonedRunError, not a constraint message. */
export async function runGuarded(db: D1Database, id: string, statements: D1PreparedStatement[]): Promise<D1Result[]> {
  try {
    return await db.batch([db.prepare(STILL_WRITING_GUARD).bind(id), ...statements]);
  } catch (error) {
    if (isGuardFailure(error)) throw new AbandonedRunError(id);
    throw error;
  }
}


/** A new run ids itself: random, so two runs never share staged rows. */
export function newRunId(prefix = "cli"): string {
  return `${prefix}-${crypto.randomUUID()}`;
}

/**
 * Starts (or, for a retried Workflow step, continues) generation `id` of
 * `baseUri`. Any other run still writing the same base URI is abandoned, and
 * so is any run silent for STALE_RUN_MS; the staged rows of every run that
 * is not being written are deleted.
 */
export async function beginGeneration(db: D1Database, id: string, baseUri: string, now: Date = new Date()): Promise<void> {
  const time = now.toISOString();
  const stale = new Date(now.getTime() - STALE_RUN_MS).toISOString();
  await db.batch([
    db
      .prepare("UPDATE generations SET state = 'abandoned' WHERE state = 'writing' AND id != ?1 AND (base_uri = ?2 OR touched_time < ?3)")
      .bind(id, baseUri, stale),
    db
      .prepare("INSERT INTO generations (id, base_uri, state, started_time, touched_time) VALUES (?1, ?2, 'writing', ?3, ?3) ON CONFLICT (id) DO UPDATE SET touched_time = excluded.touched_time")
      .bind(id, baseUri, time),
  ]);
  await sweepGenerations(db, now);
}

/**
 * Deletes the staged rows of every run that is not being written (published,
 * abandoned, or unknown), and abandons runs silent for STALE_RUN_MS. The
 * cron runs it too, so a killed run's rows do not wait for the next run.
 */
export async function sweepGenerations(db: D1Database, now: Date = new Date()): Promise<void> {
  const stale = new Date(now.getTime() - STALE_RUN_MS).toISOString();
  const notWriting = "generation NOT IN (SELECT id FROM generations WHERE state = 'writing')";
  await db.batch([
    db.prepare("UPDATE generations SET state = 'abandoned' WHERE state = 'writing' AND touched_time < ?1").bind(stale),
    db.prepare(`DELETE FROM staged_chunks WHERE ${notWriting}`),
    db.prepare(`DELETE FROM staged_documents WHERE ${notWriting}`),
    db.prepare(`DELETE FROM staged_pages WHERE ${notWriting}`),
    db.prepare(`DELETE FROM staged_site_pages WHERE ${notWriting}`),
    db.prepare(`DELETE FROM staged_index_terms WHERE ${notWriting}`),
    // Kept a while: a publishing step retried after its batch landed must find its run published, not unknown.
    db.prepare("DELETE FROM generations WHERE state != 'writing' AND touched_time < ?1").bind(stale),
  ]);
}

/** Ends a run that failed: nothing of it is published, and its rows go at once. */
export async function abandonGeneration(db: D1Database, id: string): Promise<void> {
  await db.prepare("UPDATE generations SET state = 'abandoned' WHERE id = ?1 AND state = 'writing'").bind(id).run();
  await sweepGenerations(db);
}

/** Where run `id` stands, or null when it is unknown (never begun, or swept long ago). */
export async function generationState(db: D1Database, id: string): Promise<"writing" | "published" | "abandoned" | null> {
  return (await generationOf(db, id))?.state ?? null;
}

/** Run `id`'s state and the time of its last write (epoch ms), or null when it is unknown. */
export async function generationOf(db: D1Database, id: string): Promise<{ state: "writing" | "published" | "abandoned"; touchedTime: number } | null> {
  const row = await db
    .prepare("SELECT state, touched_time FROM generations WHERE id = ?1")
    .bind(id)
    .first<{ state: "writing" | "published" | "abandoned"; touched_time: string }>();
  return row ? { state: row.state, touchedTime: Date.parse(row.touched_time) } : null;
}

/** What publishing run `id` did, read back from its row (for STALE_RUN_MS after it published); null when it did not publish. */
export async function publishedCounts(db: D1Database, id: string): Promise<{ added: number; updated: number; unchanged: number; removed: number } | null> {
  return db
    .prepare("SELECT added, updated, unchanged, removed FROM generations WHERE id = ?1 AND state = 'published'")
    .bind(id)
    .first<{ added: number; updated: number; unchanged: number; removed: number }>();
}

/** Names per look-up: the base URI takes one parameter, the names the rest. */
export const NAMES_PER_LOOKUP = D1_LIMITS.boundParameters - 1;

/** The content hashes readers see now for these names of the base URI. */
export async function liveHashes(db: D1Database, baseUri: string, names: readonly string[]): Promise<Map<string, string>> {
  const hashes = new Map<string, string>();
  for (let i = 0; i < names.length; i += NAMES_PER_LOOKUP) {
    const batch = names.slice(i, i + NAMES_PER_LOOKUP);
    const placeholders = batch.map((_, j) => `?${j + 2}`).join(", ");
    const { results } = await withRetries(() =>
      db
        .prepare(`SELECT name, content_hash FROM documents WHERE base_uri = ?1 AND name IN (${placeholders})`)
        .bind(baseUri, ...batch)
        .all<{ name: string; content_hash: string }>(),
    );
    for (const row of results) hashes.set(row.name, row.content_hash);
  }
  return hashes;
}

/** How often a statement or batch is tried again after the connection to D1 failed. */
const BATCH_RETRIES = 2;

/**
 * Runs a read or a batch, again after a lost connection. A long ingestion
 * meets dropped connections: wrangler's bindings (local and remote) reuse an
 * idle connection that the other side may have closed while thousands of
 * pages were being prepared. Reads and staging batches can be repeated
 * harmlessly, and so can publishing (a second try of a batch that did land
 * meets the guard and says the run is no longer being written); SQL errors
 * are never retried.
 */
export async function withRetries<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      const lostConnection = /fetch failed|other side closed|ECONNRESET|socket hang up|Network connection lost/i.test(`${String(error)} ${String((error as { cause?: unknown }).cause)}`);
      if (!lostConnection || attempt >= BATCH_RETRIES) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500 * (attempt + 1)));
    }
  }
}
