// The words every ingestion prints for what it changed.
import type { SyncReport } from "../src/sync-report.ts";

/**
 * What a sync changed, counted: the start of every ingestion's summary line.
 *
 * @example describeSync(report) // "2 added, 0 updated, 5 unchanged, 1 removed"
 */
export function describeSync(report: SyncReport): string {
  return `${report.added.length} added, ${report.updated.length} updated, ${report.unchanged.length} unchanged, ${report.removed.length} removed`;
}
