/**
 * Private documentation (migration 0013): which data sources a caller sees.
 * A data source is public until it is given audiences; then only a key that
 * carries one of them sees it. This is the one place that decides: every
 * door hands its caller's `Viewer` to the domain reads, which resolve it
 * here to the data sources hidden from that caller and leave their pages out
 * in SQL (`visibleSql`, `withVisibility`), so a hidden page is exactly a
 * missing one. The reads also note here what they returned of restricted
 * sources, for the audit log (src/documents/access/audit.ts).
 */
import type { D1Reader } from "../../d1/sessions.ts";
import { d1Statements, type BoundStatement, type StatementRunner } from "../../d1/statements.ts";
import type { CompiledFilter } from "../search/filter.ts";

/** Who reads: the audiences of the caller's key (none for an anonymous caller), and what it was given of restricted sources. */
export interface Viewer {
  readonly audiences: readonly string[];
  /** Filled by the reads: restricted data source → the names returned from it (a count alone leaves them empty) and the audiences that opened it. */
  readonly touched: Map<string, { names: Set<string>; audiences: readonly string[] }>;
}

/** A viewer carrying `audiences`, with nothing touched yet. */
export function viewerWith(audiences: readonly string[]): Viewer {
  return { audiences, touched: new Map() };
}

/**
 * A caller without audiences: public sources only. Reads take it when no
 * viewer is given, so a read that forgets its caller over-hides, never leaks.
 */
export function publicViewer(): Viewer {
  return viewerWith([]);
}

/** What one read may show its viewer. */
export interface Visibility {
  /** Data sources the viewer may not see, sorted. */
  readonly hidden: readonly string[];
  /** Every restricted data source the viewer does see, with the viewer's audiences that open it (for the audit log). */
  readonly restricted: ReadonlyMap<string, readonly string[]>;
}

/** Audience names: what `--audience` takes. Lower-case, so team-a and Team-A are one audience. */
const AUDIENCE_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/**
 * A `--audience team-a,team-b` list checked and normalised: trimmed,
 * lower-cased, without repeats. Throws a plain Error saying what a name may be.
 *
 * @example audienceList(" Team-A, team-b ,team-a") // ["team-a", "team-b"]
 */
export function audienceList(value: string): string[] {
  const names = value.split(",").map((name) => name.trim().toLowerCase()).filter((name) => name !== "");
  if (names.length === 0) throw new Error("--audience needs at least one name, e.g. --audience team-a (or --public to make a source public again)");
  for (const name of names) {
    if (!AUDIENCE_PATTERN.test(name)) throw new Error(`audience "${name.slice(0, 80)}" is not a name: use 1–64 letters, digits, ".", "_" or "-", starting with a letter or digit`);
  }
  return [...new Set(names)].sort();
}

/** The audiences table read whole (a handful of rows: one per restricted source and audience), in an order two reads compare by. */
const AUDIENCES_STATEMENT: BoundStatement = { sql: "SELECT data_source, audience FROM data_source_audiences ORDER BY data_source, audience", params: [] };

interface AudienceRow {
  data_source: string;
  audience: string;
}

/** The audiences table as this isolate last read it, as JSON: what readAsViewer builds statements with before reading it again. */
let lastAudiences: string | undefined;

/** The data sources hidden from `viewer` and the restricted ones it sees, from the audiences table's rows. */
function visibilityFrom(rows: readonly AudienceRow[], viewer: Viewer): Visibility {
  const open = new Map<string, string[]>();
  for (const row of rows) if (viewer.audiences.includes(row.audience)) open.set(row.data_source, [...(open.get(row.data_source) ?? []), row.audience]);
  const hidden = [...new Set(rows.map((row) => row.data_source))].filter((source) => !open.has(source)).sort();
  return { hidden, restricted: open };
}

/** The data sources hidden from `viewer` and the restricted ones it sees, read from the audiences table. */
export async function visibilityFor(db: D1Reader, viewer: Viewer): Promise<Visibility> {
  const [rows = []] = await d1Statements(db).rows([AUDIENCES_STATEMENT]);
  lastAudiences = JSON.stringify(rows);
  return visibilityFrom(rows as unknown as AudienceRow[], viewer);
}

/**
 * Runs `read` as `viewer` sees the corpus, without a round trip of its own
 * for the audiences table: `read` builds its statements from the table as
 * this isolate last read it, and the first batch it runs reads the table
 * again (a D1 batch is one transaction, so that is the table its statements
 * ran against). When the two agree (nearly always: audiences change by
 * hand) that batch was the only round trip; when they differ, or `read` ran
 * no statement, `read` runs again with the table just read. So nothing
 * `read` returns was chosen under a visibility that did not hold.
 *
 * @example const { result, visibility } = await readAsViewer(db, viewer, (runner, visibility) => fetchCandidates(runner, planFor(visibility), ranking));
 */
export async function readAsViewer<T>(db: D1Reader, viewer: Viewer, read: (runner: StatementRunner, visibility: Visibility) => Promise<T>): Promise<{ result: T; visibility: Visibility }> {
  const known = lastAudiences;
  if (known !== undefined) {
    let seen: string | undefined;
    const runner = d1Statements(db);
    let first = true;
    const alongside: StatementRunner = {
      async rows(statements) {
        if (!first) return runner.rows(statements);
        first = false;
        const rows = await runner.rows([...statements, AUDIENCES_STATEMENT]);
        seen = JSON.stringify(rows.at(-1) ?? []);
        return rows.slice(0, -1);
      },
    };
    const visibility = visibilityFrom(JSON.parse(known) as AudienceRow[], viewer);
    const result = await read(alongside, visibility);
    if (seen === known) return { result, visibility };
  }
  const visibility = await visibilityFor(db, viewer);
  return { result: await read(d1Statements(db), visibility), visibility };
}

/**
 * The SQL condition that a page of `documents` aliased `alias` is visible,
 * its hidden data sources bound as one JSON array at `param` (`?` or `?N`);
 * `hiddenParam` gives the value. Empty when nothing is hidden.
 *
 * @example `WHERE name > ?1 ${visibleSql("d", visibility, "?3")}` with .bind(after, limit, hiddenParam(visibility))
 */
export function visibleSql(alias: string, visibility: Visibility, param: string): string {
  return visibility.hidden.length === 0 ? "" : `AND ${alias}.data_source NOT IN (SELECT value FROM json_each(${param}))`;
}

/** The bound value `visibleSql`'s parameter takes. */
export function hiddenParam(visibility: Visibility): string {
  return JSON.stringify(visibility.hidden);
}

/**
 * The search filter with the viewer's hidden sources left out: search and
 * answers apply a filter in every statement that picks chunks (lexical
 * candidates, vector neighbours), so this one conjunct reaches them all.
 * Unchanged when nothing is hidden.
 */
export function withVisibility(filter: CompiledFilter | null, visibility: Visibility): CompiledFilter | null {
  if (visibility.hidden.length === 0) return filter;
  // The vector index cannot run SQL: it leaves the hidden sources out by the filter's constraints, so they take no neighbour's place.
  if (!filter) return { sql: HIDDEN_CONJUNCT, params: [hiddenParam(visibility)], constraints: { excludedDataSources: visibility.hidden } };
  const excludedDataSources = [...(filter.constraints.excludedDataSources ?? []), ...visibility.hidden];
  return { ...filter, sql: `(${filter.sql}) AND ${HIDDEN_CONJUNCT}`, params: [...filter.params, hiddenParam(visibility)], constraints: { ...filter.constraints, excludedDataSources } };
}

/** The conjunct `withVisibility` adds, its one parameter the hidden sources as JSON. */
const HIDDEN_CONJUNCT = "(d.data_source NOT IN (SELECT value FROM json_each(?)))";

/** Whether the viewer may see a data source (for the small lists read whole: versions, kept sources). */
export function isVisible(visibility: Visibility, dataSource: string): boolean {
  return !visibility.hidden.includes(dataSource);
}

/**
 * Records in `viewer` what a read returned of restricted data sources: the
 * names given, or only the source when a count was shown.
 */
export function noteTouched(viewer: Viewer, visibility: Visibility, returned: readonly { dataSource: string; name?: string }[]): void {
  for (const { dataSource, name } of returned) {
    const audiences = visibility.restricted.get(dataSource);
    if (!audiences) continue;
    let touched = viewer.touched.get(dataSource);
    if (!touched) viewer.touched.set(dataSource, (touched = { names: new Set(), audiences }));
    if (name !== undefined) touched.names.add(name);
  }
}

/** A data source's audiences as stored; empty for a public source. */
export async function sourceAudiences(db: D1Reader, dataSource: string): Promise<string[]> {
  const { results } = await db.prepare("SELECT audience FROM data_source_audiences WHERE data_source = ?1 ORDER BY audience").bind(dataSource).all<{ audience: string }>();
  return results.map((row) => row.audience);
}

/** Every restricted data source with its audiences, by name. */
export async function restrictedSources(db: D1Reader): Promise<Map<string, string[]>> {
  const { results } = await db.prepare("SELECT data_source, audience FROM data_source_audiences ORDER BY data_source, audience").all<{ data_source: string; audience: string }>();
  const sources = new Map<string, string[]>();
  for (const row of results) sources.set(row.data_source, [...(sources.get(row.data_source) ?? []), row.audience]);
  return sources;
}

/**
 * The statements that give a data source exactly `audiences` (empty: public
 * again), in one batch so no reader sees it half-changed. Its pages are not
 * touched: changing who sees a source needs no re-ingestion.
 */
function setSourceAudiencesStatements(db: D1Database, dataSource: string, audiences: readonly string[]): D1PreparedStatement[] {
  return [
    db.prepare("DELETE FROM data_source_audiences WHERE data_source = ?1").bind(dataSource),
    ...audiences.map((audience) => db.prepare("INSERT INTO data_source_audiences (data_source, audience) VALUES (?1, ?2)").bind(dataSource, audience)),
  ];
}

/** Gives a data source exactly `audiences` (empty: public again). */
export async function setSourceAudiences(db: D1Database, dataSource: string, audiences: readonly string[]): Promise<void> {
  await db.batch(setSourceAudiencesStatements(db, dataSource, audiences));
}
