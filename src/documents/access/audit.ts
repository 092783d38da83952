/**
 * The audit log of restricted documentation (migration 0013): one row per
 * request whose answer carried something of a restricted data source (the
 * reads note it in the request's Viewer, visibility.ts): who (key id and the
 * audiences that opened the sources), through which door and tool, which
 * sources and which document names. Never any page text, query or filter.
 */
import type { D1Reader } from "../../d1/sessions.ts";
import type { Viewer } from "./visibility.ts";

/** Where a request came in: the transports and routes that read the corpus. */
export type Door = "mcp" | "rest" | "web" | "llms.txt" | "markdown" | "sources" | "healthz";

/** The caller as the log names it: its key id (null for an anonymous caller, which never sees a restricted source). */
interface AuditedCaller {
  keyId: string | null;
}

/** One row of the log, as `npm run audit` prints it. */
export interface AuditRecord {
  time: string;
  keyId: string | null;
  audiences: string[];
  door: string;
  tool: string;
  dataSources: string[];
  documents: string[];
}

/** Rows kept when AUDIT_RETENTION_DAYS is unset: a quarter, the span access reviews usually look back over. */
const DEFAULT_AUDIT_RETENTION_DAYS = 90;

/**
 * Records what `viewer` was given of restricted sources, if anything. The
 * door awaits it before answering: a read that cannot be logged fails
 * instead of going out unlogged.
 */
export async function recordAccess(db: D1Database, caller: AuditedCaller, door: Door, tool: string, viewer: Viewer, now: Date = new Date()): Promise<void> {
  if (viewer.touched.size === 0) return;
  const sources = [...viewer.touched.keys()].sort();
  const audiences = [...new Set([...viewer.touched.values()].flatMap((touched) => touched.audiences))].sort();
  const documents = [...new Set([...viewer.touched.values()].flatMap((touched) => [...touched.names]))];
  await db
    .prepare("INSERT INTO audit_log (time, key_id, audiences, door, tool, data_sources, documents) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")
    .bind(now.toISOString(), caller.keyId, JSON.stringify(audiences), door, tool, JSON.stringify(sources), JSON.stringify(documents))
    .run();
  viewer.touched.clear();
}

interface AuditRow {
  time: string;
  key_id: string | null;
  audiences: string;
  door: string;
  tool: string;
  data_sources: string;
  documents: string;
}

/** The newest rows first, at most `limit`, optionally since a time or for one key or data source. */
export async function readAuditLog(
  db: D1Reader,
  options: { since?: string; keyId?: string; dataSource?: string; limit: number },
): Promise<AuditRecord[]> {
  const { results } = await db
    .prepare(
      `SELECT time, key_id, audiences, door, tool, data_sources, documents FROM audit_log
       WHERE (?1 IS NULL OR time >= ?1) AND (?2 IS NULL OR key_id = ?2)
         AND (?3 IS NULL OR EXISTS (SELECT 1 FROM json_each(audit_log.data_sources) WHERE value = ?3))
       ORDER BY time DESC, id DESC LIMIT ?4`,
    )
    .bind(options.since ?? null, options.keyId ?? null, options.dataSource ?? null, options.limit)
    .all<AuditRow>();
  return results.map((row) => ({
    time: row.time,
    keyId: row.key_id,
    audiences: JSON.parse(row.audiences) as string[],
    door: row.door,
    tool: row.tool,
    dataSources: JSON.parse(row.data_sources) as string[],
    documents: JSON.parse(row.documents) as string[],
  }));
}

/** Deletes the rows older than `days` days before `now`; returns how many went. */
export async function pruneAuditLog(db: D1Database, days: number, now: Date = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - days * 86_400_000).toISOString();
  const result = await db.prepare("DELETE FROM audit_log WHERE time < ?1").bind(cutoff).run();
  return result.meta.changes ?? 0;
}

/** AUDIT_RETENTION_DAYS: a whole number of days ≥ 1; unset or unusable means the default (warned once per value). */
export function auditRetentionDays(env: { AUDIT_RETENTION_DAYS?: string }): number {
  const raw = String(env.AUDIT_RETENTION_DAYS ?? "").trim();
  if (raw === "") return DEFAULT_AUDIT_RETENTION_DAYS;
  const days = Number(raw);
  if (Number.isInteger(days) && days >= 1) return days;
  if (!warned.has(raw)) {
    warned.add(raw);
    console.warn(`AUDIT_RETENTION_DAYS "${raw}" is not a whole number of days ≥ 1; keeping ${DEFAULT_AUDIT_RETENTION_DAYS} days`);
  }
  return DEFAULT_AUDIT_RETENTION_DAYS;
}
const warned = new Set<string>();
