/**
 * The Cron Trigger's work (wrangler.toml `[triggers]`): sweep what dead runs
 * staged, release sources whose run ended without saying how, then start one
 * refresh Workflow per due source. A source is claimed (its lock set) before
 * its instance is created, so two runs of one source never overlap, whatever
 * the number of cron events at once.
 */
import { generationOf, STALE_RUN_MS, sweepGenerations } from "../documents/ingest/generations.ts";
import { claimSource, dueSources, finishRun, listSources, releaseRun, type Source } from "./sources.ts";
import type { RefreshParams } from "./sources.ts";
import { startPendingRun, sweepPushes } from "./pushes.ts";

/** What one cron event did, by source name. */
interface CronReport {
  started: string[];
  released: { name: string; why: string }[];
}

/** The Cron Trigger in wrangler.toml `[triggers]` (a test holds the two together). Its events refresh due sources. */
export const REFRESH_CRON = "*/15 * * * *";

/**
 * Which sources a scheduled event refreshes: the Cron Trigger's own events
 * the due ones; an event fired by hand (wrangler's /__scheduled under
 * `npm start`, which carries no or another cron) every source not running,
 * so "refresh now" is one request locally.
 */
export function refreshesAll(cron: string): boolean {
  return cron !== REFRESH_CRON;
}

/** A run still marked running after this long is taken as lost: the longest crawl the caps allow takes far less. */
const MAX_RUN_MS = 24 * 60 * 60 * 1000;

/** One cron event: sweep, release lost runs, then claim and start a Workflow per due source (every idle one with `all`). */
export async function refreshDueSources(
  db: D1Database,
  workflow: Workflow<RefreshParams>,
  now: number = Date.now(),
  options: { all?: boolean } = {},
): Promise<CronReport> {
  await sweepGenerations(db, new Date(now));
  const report: CronReport = { started: [], released: [] };
  for (const source of (await listSources(db)).filter((source) => source.runId !== null)) {
    const why = await whyRunIsOver(db, workflow, source, now);
    if (!why) continue;
    await releaseRun(db, source, why, now);
    report.released.push({ name: source.name, why });
  }
  const sources = await listSources(db);
  await sweepPushes(db, now);
  for (const source of options.all ? sources.filter((source) => source.runId === null) : dueSources(sources, now)) {
    // Workflow instance ids allow letters, digits, "-" and "_" (at most 64): a UUID, not the source's name.
    const runId = `run-${crypto.randomUUID()}`;
    if (!(await claimSource(db, source.name, runId, now))) continue;
    try {
      await workflow.create({ id: runId, params: { source: source.name } });
      report.started.push(source.name);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await finishRun(db, source.name, runId, { outcome: "failed", error: `the refresh Workflow could not be started: ${message}` }, now);
    }
  }
  // Pushes still waiting (their run failed before taking them, or could not be started) get a run now.
  for (const source of await listSources(db)) {
    if (source.runId !== null) continue;
    const started = await startPendingRun(db, workflow, source.name, now).catch(() => null);
    if (started) report.started.push(source.name);
  }
  return report;
}

/**
 * Why a source's run is over though its lock is still set, or null while it
 * may still be going: its Workflow instance ended (errored, terminated, or
 * complete without recording), or it is unknown to the Workflow (a CLI run,
 * or one lost with its instance) and its generation was abandoned or has been
 * silent for STALE_RUN_MS, or it has run for more than MAX_RUN_MS.
 */
async function whyRunIsOver(db: D1Database, workflow: Workflow<RefreshParams>, source: Source, now: number): Promise<string | null> {
  const runId = source.runId!;
  const started = source.lastRun?.startTime ?? now;
  let status: InstanceStatus | undefined;
  try {
    status = await (await workflow.get(runId)).status();
  } catch {
    status = undefined;
  }
  if (status && ["errored", "terminated", "complete"].includes(status.status)) {
    const detail = status.error?.message ? `: ${status.error.message}` : "";
    return `the run ended (${status.status}${detail}) without recording how; nothing of it was published`;
  }
  if (now - started > MAX_RUN_MS) {
    if (status) await (await workflow.get(runId)).terminate().catch(() => {});
    return `the run took more than ${MAX_RUN_MS / 3_600_000} hours and was stopped; nothing of it was published`;
  }
  if (status) return null;
  const generation = await generationOf(db, runId);
  const lastSign = generation?.touchedTime ?? started;
  if (generation?.state !== "abandoned" && now - lastSign < STALE_RUN_MS) return null;
  return "the run stopped without finishing (its process or Workflow instance is gone); nothing of it was published";
}
