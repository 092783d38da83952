import { D1_LIMITS } from "../../d1/limits.ts";
import type { D1Reader } from "../../d1/sessions.ts";
import type { BoundStatement } from "../../d1/statements.ts";
import { timed } from "../../observability/timings.ts";
import { toSummary, type DocumentRow, type DocumentSummary, type StoredDocument } from "../document.ts";
import { seenByDefaultSql } from "../versions.ts";
import { hiddenParam, noteTouched, publicViewer, readAsViewer, visibilityFor, visibleSql, type Viewer, type Visibility } from "../access/visibility.ts";

const MAX_BOUND_PARAMETERS = D1_LIMITS.boundParameters;

/** How many pages the corpus holds that `viewer` sees (absent: the public ones). */
export async function countDocuments(db: D1Reader, viewer: Viewer = publicViewer()): Promise<number> {
  const visibility = await visibilityFor(db, viewer);
  const row = await timed("d1", () =>
    db.prepare(`SELECT count(*) AS n FROM documents AS d WHERE 1 ${visibleSql("d", visibility, "?1")}`).bind(...hiddenBinding(visibility)).first<{ n: number }>(),
  );
  noteTouched(viewer, visibility, [...visibility.restricted.keys()].map((dataSource) => ({ dataSource })));
  return row?.n ?? 0;
}

/** The bound value of `visibleSql`'s parameter, when it has one. */
function hiddenBinding(visibility: Visibility): string[] {
  return visibility.hidden.length > 0 ? [hiddenParam(visibility)] : [];
}

/** What a page read returns: everything get_documents serves. */
const PAGE_COLUMNS = "name, uri, title, description, data_source, update_time, content, content_length_bytes, version";

/**
 * The statements that read `columns` of the pages named, at most
 * MAX_BOUND_PARAMETERS names each (repeats read once). Exported so the
 * benchmark reads the same way.
 */
export function documentStatements(names: readonly string[], visibility: Visibility = NOTHING_HIDDEN, columns = PAGE_COLUMNS): BoundStatement[] {
  const unique = [...new Set(names)];
  const statements: BoundStatement[] = [];
  // One parameter is the hidden sources' when any are hidden.
  const perStatement = MAX_BOUND_PARAMETERS - 1;
  for (let i = 0; i < unique.length; i += perStatement) {
    const batch = unique.slice(i, i + perStatement);
    statements.push({
      sql: `SELECT ${columns} FROM documents AS d WHERE name IN (${batch.map((_, j) => `?${j + 1}`).join(", ")}) ${visibleSql("d", visibility, `?${batch.length + 1}`)}`,
      params: [...batch, ...hiddenBinding(visibility)],
    });
  }
  return statements;
}

/** Nothing hidden: for reads that are not a caller's (the benchmark's). */
const NOTHING_HIDDEN: Visibility = { hidden: [], restricted: new Map() };

/**
 * The stored pages among `names` that `viewer` sees (absent: the public
 * ones), keyed by name; missing and hidden names alike are absent.
 */
export async function findDocuments(db: D1Reader, names: readonly string[], viewer: Viewer = publicViewer()): Promise<Map<string, StoredDocument>> {
  const found = new Map<string, StoredDocument>();
  if (names.length === 0) return found;
  // What the viewer sees is read in the same round trip as the pages (readAsViewer).
  const { result: read, visibility } = await readAsViewer(db, viewer, (runner, visibility) => runner.rows(documentStatements(names, visibility)));
  for (const rows of read) {
    for (const row of rows as unknown as DocumentRow[]) {
      found.set(row.name, { ...toSummary(row), content: row.content, contentLengthBytes: row.content_length_bytes });
    }
  }
  noteTouched(viewer, visibility, [...found.values()].map((document) => ({ dataSource: document.dataSource, name: document.name })));
  return found;
}

/** One page of the corpus in name order, for listing it (MCP resources). */
interface DocumentListing {
  documents: (DocumentSummary & { contentLengthBytes: number })[];
  /** The last name on this page when more follow: list again after it. */
  lastName?: string;
}

/**
 * Up to `limit` pages whose names sort after `afterName` (from the start
 * when it is empty), in name order: the primary key's order, so a listing
 * is stable while pages are added and each page is one index range scan.
 */
export async function listDocuments(db: D1Reader, afterName: string, limit: number, viewer: Viewer = publicViewer()): Promise<DocumentListing> {
  const visibility = await visibilityFor(db, viewer);
  const { results } = await db
    .prepare(
      `SELECT name, uri, title, description, data_source, update_time, content_length_bytes, version
       FROM documents AS d WHERE name > ?1 AND ${seenByDefaultSql("d")} ${visibleSql("d", visibility, "?3")} ORDER BY name LIMIT ?2`,
    )
    .bind(afterName, limit + 1, ...hiddenBinding(visibility))
    .all<Omit<DocumentRow, "content">>();
  const page = results.slice(0, limit);
  const documents = page.map((row) => ({ ...toSummary(row), contentLengthBytes: row.content_length_bytes }));
  noteTouched(viewer, visibility, documents.map((document) => ({ dataSource: document.dataSource, name: document.name })));
  return results.length > limit ? { documents, lastName: page[page.length - 1]?.name } : { documents };
}

/** The stored names that start with `prefix`, in name order, at most `limit` (an index range scan). */
export async function documentNamesWithPrefix(db: D1Reader, prefix: string, limit: number, viewer: Viewer = publicViewer()): Promise<string[]> {
  const visibility = await visibilityFor(db, viewer);
  // SQLite compares text as UTF-8 bytes, so the names with a prefix are the range [prefix, prefix + U+10FFFF).
  const { results } = await db
    .prepare(`SELECT name, data_source FROM documents AS d WHERE name >= ?1 AND name < ?2 ${visibleSql("d", visibility, "?4")} ORDER BY name LIMIT ?3`)
    .bind(prefix, `${prefix}\u{10ffff}`, limit, ...hiddenBinding(visibility))
    .all<{ name: string; data_source: string }>();
  noteTouched(viewer, visibility, results.map((row) => ({ dataSource: row.data_source, name: row.name })));
  return results.map((row) => row.name);
}

/**
 * The size of each named page's content in UTF-8 bytes, keyed by name
 * (missing and hidden names are absent), without reading the content itself.
 */
export async function findContentLengths(db: D1Reader, names: readonly string[], viewer: Viewer = publicViewer()): Promise<Map<string, number>> {
  const lengths = new Map<string, number>();
  if (names.length === 0) return lengths;
  // What the viewer sees is read in the same round trip as the lengths (readAsViewer).
  const { result: read } = await readAsViewer(db, viewer, (runner, visibility) => runner.rows(documentStatements(names, visibility, "name, content_length_bytes")));
  for (const row of read.flat() as unknown as Pick<DocumentRow, "name" | "content_length_bytes">[]) lengths.set(row.name, row.content_length_bytes);
  return lengths;
}
