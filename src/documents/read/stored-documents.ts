import { D1_LIMITS } from "../../d1/limits.ts";
import type { D1Reader } from "../../d1/sessions.ts";
import { d1Statements, type BoundStatement } from "../../d1/statements.ts";
import { timed } from "../../observability/timings.ts";
import { toSummary, type DocumentRow, type DocumentSummary, type StoredDocument } from "../document.ts";
import { seenByDefaultSql } from "../versions.ts";

const MAX_BOUND_PARAMETERS = D1_LIMITS.boundParameters;

/** How many pages the corpus holds. */
export async function countDocuments(db: D1Reader): Promise<number> {
  const row = await timed("d1", () => db.prepare("SELECT count(*) AS n FROM documents").first<{ n: number }>());
  return row?.n ?? 0;
}

/**
 * The statements that read the pages named, at most MAX_BOUND_PARAMETERS
 * names each (repeats read once). Exported so the benchmark reads the same way.
 */
export function documentStatements(names: readonly string[]): BoundStatement[] {
  const unique = [...new Set(names)];
  const statements: BoundStatement[] = [];
  for (let i = 0; i < unique.length; i += MAX_BOUND_PARAMETERS) {
    const batch = unique.slice(i, i + MAX_BOUND_PARAMETERS);
    statements.push({
      sql: `SELECT name, uri, title, description, data_source, update_time, content, content_length_bytes, version
         FROM documents WHERE name IN (${batch.map((_, j) => `?${j + 1}`).join(", ")})`,
      params: batch,
    });
  }
  return statements;
}

/** The stored pages among `names`, keyed by name (missing names are absent). */
export async function findDocuments(db: D1Reader, names: readonly string[]): Promise<Map<string, StoredDocument>> {
  const found = new Map<string, StoredDocument>();
  const statements = documentStatements(names);
  if (statements.length === 0) return found;
  for (const rows of await d1Statements(db).rows(statements)) {
    for (const row of rows as unknown as DocumentRow[]) {
      found.set(row.name, { ...toSummary(row), content: row.content, contentLengthBytes: row.content_length_bytes });
    }
  }
  return found;
}

/** One page of the corpus in name order, for listing it (MCP resources). */
export interface DocumentListing {
  documents: (DocumentSummary & { contentLengthBytes: number })[];
  /** The last name on this page when more follow: list again after it. */
  lastName?: string;
}

/**
 * Up to `limit` pages whose names sort after `afterName` (from the start
 * when it is empty), in name order: the primary key's order, so a listing
 * is stable while pages are added and each page is one index range scan.
 */
export async function listDocuments(db: D1Reader, afterName: string, limit: number): Promise<DocumentListing> {
  const { results } = await db
    .prepare(
      `SELECT name, uri, title, description, data_source, update_time, content_length_bytes, version
       FROM documents AS d WHERE name > ?1 AND ${seenByDefaultSql("d")} ORDER BY name LIMIT ?2`,
    )
    .bind(afterName, limit + 1)
    .all<Omit<DocumentRow, "content">>();
  const page = results.slice(0, limit);
  const documents = page.map((row) => ({ ...toSummary(row), contentLengthBytes: row.content_length_bytes }));
  return results.length > limit ? { documents, lastName: page[page.length - 1]?.name } : { documents };
}

/** The stored names that start with `prefix`, in name order, at most `limit` (an index range scan). */
export async function documentNamesWithPrefix(db: D1Reader, prefix: string, limit: number): Promise<string[]> {
  // SQLite compares text as UTF-8 bytes, so the names with a prefix are the range [prefix, prefix + U+10FFFF).
  const { results } = await db
    .prepare("SELECT name FROM documents WHERE name >= ?1 AND name < ?2 ORDER BY name LIMIT ?3")
    .bind(prefix, `${prefix}\u{10ffff}`, limit)
    .all<{ name: string }>();
  return results.map((row) => row.name);
}

/**
 * The size of each named page's content in UTF-8 bytes, keyed by name
 * (missing names are absent), without reading the content itself.
 */
export async function findContentLengths(db: D1Reader, names: readonly string[]): Promise<Map<string, number>> {
  const lengths = new Map<string, number>();
  const unique = [...new Set(names)];
  for (let i = 0; i < unique.length; i += MAX_BOUND_PARAMETERS) {
    const batch = unique.slice(i, i + MAX_BOUND_PARAMETERS);
    const placeholders = batch.map((_, j) => `?${j + 1}`).join(", ");
    const { results } = await db
      .prepare(`SELECT name, content_length_bytes FROM documents WHERE name IN (${placeholders})`)
      .bind(...batch)
      .all<Pick<DocumentRow, "name" | "content_length_bytes">>();
    for (const row of results) lengths.set(row.name, row.content_length_bytes);
  }
  return lengths;
}
