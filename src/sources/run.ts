// One run of a source: claim it, read and write through the reader, record
// the outcome. The reader is passed in so the CLI (Node) and a Worker share it.
import { AlmanacError } from "../errors.ts";
import type { SyncReport } from "../sync-report.ts";
import { claimSource, finishRun, getSource, type Source } from "./sources.ts";

/** What a reader reports: the sync of its pages and how many it skipped. */
export type ReadResult = SyncReport & { skipped?: unknown[] | number };

/**
 * Runs `read` for the source `name` under lock `runId` and records how it
 * ended; a run already holding the source makes this one refuse, saying so.
 * A failed read is recorded as failed with its message, then rethrown.
 */
export async function runSource(
  db: D1Database,
  name: string,
  runId: string,
  read: (source: Source) => Promise<ReadResult>,
  clock: () => number = Date.now,
): Promise<Source> {
  const source = await getSource(db, name);
  if (!source) throw new AlmanacError("NOT_FOUND", `no source named "${name}"; npm run sources -- list shows the sources`);
  if (!(await claimSource(db, name, runId, clock()))) {
    throw new AlmanacError("FAILED_PRECONDITION", `source "${name}" is being refreshed by run ${source.runId}; wait for it to end`);
  }
  try {
    const result = await read(source);
    const skipped = typeof result.skipped === "number" ? result.skipped : (result.skipped?.length ?? 0);
    const counts = { added: result.added.length, updated: result.updated.length, unchanged: result.unchanged.length, removed: result.removed.length, skipped };
    await finishRun(db, name, runId, { outcome: "succeeded", counts }, clock());
  } catch (error) {
    await finishRun(db, name, runId, { outcome: "failed", error: error instanceof Error ? error.message : String(error) }, clock());
    throw error;
  }
  return (await getSource(db, name))!;
}
