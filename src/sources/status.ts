// What GET /sources shows of each source: freshness, never its options (they may carry secrets).
import type { D1Reader } from "../d1/sessions.ts";
import { redactUrlSecrets } from "../text/redact-urls.ts";
import { listSources, type Source } from "./sources.ts";
import { isVisible, noteTouched, publicViewer, visibilityFor, type Viewer } from "../documents/access/visibility.ts";

const time = (ms: number | null | undefined) => (ms == null ? null : new Date(ms).toISOString());

/** The data source (host) a source's pages are filed under: --data-source, else the host of --base-uri or the URL. */
export function hostOf(source: Source): string {
  const options = source.options as Record<string, unknown>;
  if (typeof options["data-source"] === "string") return options["data-source"];
  return new URL(typeof options["base-uri"] === "string" ? options["base-uri"] : source.url).host;
}

/** One source's public freshness, its data source holding `pageCount` pages (null: not known now). */
export function statusOf(source: Source, pageCount: number | null) {
  const run = source.lastRun;
  return {
    name: source.name,
    kind: source.kind,
    host: hostOf(source),
    pageCount,
    lastSuccessTime: time(source.lastSuccessTime),
    nextDue: time(source.nextDue),
    // Whether pushes refresh it, never its secret or the salt it is derived from.
    hook: source.hook ? { setTime: time(source.hook.setTime) } : null,
    lastPush: source.lastPush && { time: time(source.lastPush.time), commit: source.lastPush.commit },
    lastRun: run && {
      outcome: run.outcome,
      startTime: time(run.startTime),
      endTime: time(run.endTime),
      added: run.added,
      updated: run.updated,
      unchanged: run.unchanged,
      removed: run.removed,
      skipped: run.skipped,
      // Pages whose text the run read, and pages it added, changed or removed.
      pagesRead: source.lastRunPages.read,
      pagesWritten: source.lastRunPages.written,
      // From the first push the run took to its pages being published (null: a scheduled run).
      pushToPublishedMs: source.lastRunPages.pushToPublishedMs,
      // Stored redacted; redacted again for rows written before that was so.
      error: run.error && redactUrlSecrets(run.error),
    },
  };
}

/** What GET /sources and the landing page show of a source. */
export type SourceStatus = ReturnType<typeof statusOf>;

/** Every source's public freshness, as GET /sources answers it (times in RFC 3339). */
export async function sourcesStatus(db: D1Reader, viewer: Viewer = publicViewer()): Promise<{ sources: SourceStatus[] }> {
  const visibility = await visibilityFor(db, viewer);
  // A source whose data source the viewer may not see is not listed at all (visibility.ts).
  const sources = (await listSources(db)).filter((source) => isVisible(visibility, hostOf(source)));
  const { results } = await db.prepare("SELECT data_source, COUNT(*) AS n FROM documents GROUP BY data_source").all<{ data_source: string; n: number }>();
  const counts = new Map(results.map((row) => [row.data_source, row.n]));
  noteTouched(viewer, visibility, sources.map((source) => ({ dataSource: hostOf(source) })));
  return { sources: sources.map((source) => statusOf(source, counts.get(hostOf(source)) ?? 0)) };
}
