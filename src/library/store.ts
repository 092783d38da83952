import type { SyncReport } from "../sync-report.ts";
import { planBatches, utf8Bytes, type StatementGroup } from "../d1/batches.ts";
import type { D1Reader } from "../d1/sessions.ts";
import { sha256Hex } from "../hash.ts";
import { splitEntry, type EntryBody, type EntryMetadata, type LibraryEntry } from "./entry.ts";

/**
 * The library's storage: metadata rows in D1 (table library_entries, see
 * migrations/0002_query_library.sql), template bodies in the TEMPLATES KV
 * namespace. Reads are here; so is the one write path, `syncLibrary`.
 */

/** The bindings the library needs; the CLI passes local or proxied ones. */
export interface LibraryBindings {
  DB: D1Database;
  TEMPLATES: KVNamespace;
}

/** What the library's read paths need: D1 may be a read session (d1/sessions.ts). */
export interface LibraryReadBindings {
  DB: D1Reader;
  TEMPLATES: KVNamespace;
}

/**
 * Who owns the entries `npm start` loads from corpus/library. Ownership keeps
 * a user's entries safe: the default library only (re)writes and prunes ids it
 * owns, and an id a user ingests becomes theirs, even if the default library had it.
 */
export const DEFAULT_LIBRARY = "almanac-default";

interface IndexRow {
  id: string;
  library: string;
  metadata: string;
  body_key: string;
  content_hash: string;
}

/** An entry's row: its metadata, owner and where its body lives. */
interface StoredEntry {
  library: string;
  metadata: EntryMetadata;
  bodyKey: string;
}

/**
 * Metadata of every entry that can appear in search, in id order (the order
 * ties keep). `includeMutations` is scoring's `mutationsVisible`; filtering
 * here only saves reading rows that rankEntries would drop anyway.
 */
export async function listSearchableEntries(db: D1Reader, includeMutations: boolean): Promise<EntryMetadata[]> {
  const { results } = await db
    .prepare("SELECT metadata FROM library_entries WHERE status != 'deprecated' AND (?1 = 1 OR verb = 'select') ORDER BY id")
    .bind(includeMutations ? 1 : 0)
    .all<Pick<IndexRow, "metadata">>();
  return results.map((row) => JSON.parse(row.metadata) as EntryMetadata);
}

/** One entry's row, or null when no entry has that id. */
export async function findStoredEntry(db: D1Reader, id: string): Promise<StoredEntry | null> {
  const row = await db.prepare("SELECT library, metadata, body_key FROM library_entries WHERE id = ?1").bind(id).first<IndexRow>();
  return row ? { library: row.library, metadata: JSON.parse(row.metadata) as EntryMetadata, bodyKey: row.body_key } : null;
}

/** Thrown when KV cannot give an entry's body: unreachable, missing or unreadable. */
export class TemplateStoreError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "TemplateStoreError";
  }
}

/** An entry's template and notes from KV; throws TemplateStoreError when KV fails it. */
export async function readEntryBody(kv: KVNamespace, key: string): Promise<EntryBody> {
  let text: string | null;
  try {
    text = await kv.get(key);
  } catch (error) {
    throw new TemplateStoreError(`KV read of ${key} failed`, { cause: error });
  }
  if (text === null) throw new TemplateStoreError(`KV has no value for ${key}`);
  try {
    const body = JSON.parse(text) as Partial<EntryBody>;
    if (typeof body.template === "string" && typeof body.notes === "string") return { template: body.template, notes: body.notes };
  } catch (error) {
    throw new TemplateStoreError(`KV value of ${key} is not JSON`, { cause: error });
  }
  throw new TemplateStoreError(`KV value of ${key} is not an entry body`);
}

// ---- writing ------------------------------------------------------------------

/** What one ingestion did to a library's entries: the ids added, updated, unchanged and removed, and those kept. */
export interface LibrarySyncReport extends SyncReport {
  /** Ids the default library skipped because a user library owns them. */
  kept: string[];
}

/** A D1 statement with its numbered parameters, planned before anything is written. */
interface PlannedStatement {
  sql: string;
  params: (string | number)[];
}

/** Everything a sync writes, in the order it must happen. */
interface LibrarySyncPlan {
  report: LibrarySyncReport;
  /** 1. KV values nobody reads yet (new body keys). */
  puts: { key: string; value: string }[];
  /** 2. The D1 statements switching the rows, one per entry, removals last. */
  statements: PlannedStatement[];
  /** 3. KV values no row names any more. */
  deletes: string[];
}

/** What the plan needs to know of one existing row. */
type ExistingEntry = Pick<IndexRow, "id" | "library" | "body_key" | "content_hash">;

/** Refused before anything is written: another user library owns some of the ids. */
export class LibraryOwnershipError extends Error {
  readonly conflicts: { id: string; library: string }[];

  constructor(conflicts: { id: string; library: string }[]) {
    super(
      `nothing was ingested; these ids belong to another library: ${conflicts.map((c) => `${c.id} (library "${c.library}")`).join(", ")}. ` +
        "Ingest them with that --library name, or rename the files.",
    );
    this.name = "LibraryOwnershipError";
    this.conflicts = conflicts;
  }
}

/** SHA-256 of the entry's canonical JSON, hex. */
async function hashEntry(entry: LibraryEntry): Promise<string> {
  return sha256Hex(JSON.stringify(entry));
}

/** The KV key of one version of an entry's body. */
function bodyKeyFor(id: string, hash: string): string {
  return `library/${id}@${hash.slice(0, 16)}`;
}

const UPSERT_ENTRY = `INSERT INTO library_entries (id, library, title, verb, status, metadata, body_key, content_hash, update_time)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
ON CONFLICT (id) DO UPDATE SET library = excluded.library, title = excluded.title, verb = excluded.verb,
  status = excluded.status, metadata = excluded.metadata, body_key = excluded.body_key,
  content_hash = excluded.content_hash, update_time = excluded.update_time`;

const DELETE_ENTRY = "DELETE FROM library_entries WHERE id = ?1";

/**
 * Plans making `library` hold exactly `entries` (plus, without `prune`, what it
 * already had). Pure: deciding is kept apart from writing. Rules:
 * unchanged content is left alone (update_time kept); the default library
 * never touches an id another library owns; a user library takes over ids of
 * the default library but is refused ids of another user library; `prune`
 * removes only this library's ids.
 */
function planLibrarySync(
  existing: readonly ExistingEntry[],
  library: string,
  entries: readonly { entry: LibraryEntry; hash: string }[],
  options: { prune: boolean; now: Date },
): LibrarySyncPlan {
  const byId = new Map(existing.map((row) => [row.id, row]));
  const report: LibrarySyncReport = { added: [], updated: [], unchanged: [], removed: [], kept: [] };
  const conflicts: { id: string; library: string }[] = [];
  const plan: LibrarySyncPlan = { report, puts: [], statements: [], deletes: [] };
  const liveKeys = new Set<string>();
  const staleKeys: string[] = [];
  const updateTime = options.now.toISOString();

  for (const { entry, hash } of entries) {
    const current = byId.get(entry.id);
    if (current && current.library !== library) {
      if (library === DEFAULT_LIBRARY) {
        report.kept.push(entry.id);
        liveKeys.add(current.body_key);
        continue;
      }
      if (current.library !== DEFAULT_LIBRARY) {
        conflicts.push({ id: entry.id, library: current.library });
        continue;
      }
    }
    if (current && current.library === library && current.content_hash === hash) {
      report.unchanged.push(entry.id);
      liveKeys.add(current.body_key);
      continue;
    }
    const { metadata, body } = splitEntry(entry);
    const key = bodyKeyFor(entry.id, hash);
    plan.puts.push({ key, value: JSON.stringify(body) });
    plan.statements.push({
      sql: UPSERT_ENTRY,
      params: [entry.id, library, entry.title, entry.verb, entry.status, JSON.stringify(metadata), key, hash, updateTime],
    });
    liveKeys.add(key);
    if (current) staleKeys.push(current.body_key);
    (current ? report.updated : report.added).push(entry.id);
  }
  if (conflicts.length > 0) throw new LibraryOwnershipError(conflicts);

  if (options.prune) {
    const wanted = new Set(entries.map(({ entry }) => entry.id));
    for (const row of existing) {
      if (row.library !== library || wanted.has(row.id)) continue;
      plan.statements.push({ sql: DELETE_ENTRY, params: [row.id] });
      staleKeys.push(row.body_key);
      report.removed.push(row.id);
    }
  }
  for (const row of existing) if (!staleKeys.includes(row.body_key)) liveKeys.add(row.body_key);
  plan.deletes = [...new Set(staleKeys)].filter((key) => !liveKeys.has(key));
  return plan;
}

/** Every row's id, owner, body key and hash: what planning needs to know. */
export async function listExistingEntries(db: D1Database): Promise<ExistingEntry[]> {
  const { results } = await db.prepare("SELECT id, library, body_key, content_hash FROM library_entries ORDER BY id").all<ExistingEntry>();
  return results;
}

/** KV calls in flight at once during a sync. */
const KV_CONCURRENCY = 16;

async function inBatches<T>(items: readonly T[], work: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += KV_CONCURRENCY) await Promise.all(items.slice(i, i + KV_CONCURRENCY).map(work));
}

/** Runs the planned statements in batches within D1's limits; each entry's row is one statement, so no batch holds half an entry. */
async function switchRows(db: D1Database, statements: readonly PlannedStatement[]): Promise<void> {
  const groups: StatementGroup<D1PreparedStatement>[] = statements.map(({ sql, params }) => ({
    statements: [db.prepare(sql).bind(...params)],
    bytes: params.reduce<number>((sum, param) => sum + (typeof param === "string" ? utf8Bytes(param) : 8), 0),
  }));
  for (const batch of planBatches(groups)) await db.batch(batch);
}

/** A sync's report and every id the index holds after it, any library's: what `related` ids must resolve to. */
interface LibrarySyncOutcome {
  report: LibrarySyncReport;
  ids: ReadonlySet<string>;
}

/**
 * Makes `library` hold `entries` in D1 and KV (see planLibrarySync for the
 * rules). New bodies are written first under fresh keys, then the rows switch
 * in D1 batches planned within D1's limits (d1/batches.ts, as documents are
 * written), then unreferenced bodies are deleted: a failure at any step
 * leaves every entry served whole, old or new. A sync that fits one batch
 * switches all or nothing; a larger one switches batch by batch, removals
 * last, and running it again writes only what is still missing.
 */
export async function syncLibrary(
  bindings: LibraryBindings,
  library: string,
  entries: readonly LibraryEntry[],
  options: { prune: boolean; now?: Date },
): Promise<LibrarySyncReport> {
  return (await syncLibraryWithIds(bindings, library, entries, options)).report;
}

/** syncLibrary, also returning the ids the index holds afterwards, derived from the rows it read to plan (no second query). */
export async function syncLibraryWithIds(
  bindings: LibraryBindings,
  library: string,
  entries: readonly LibraryEntry[],
  options: { prune: boolean; now?: Date },
): Promise<LibrarySyncOutcome> {
  const hashed = await Promise.all(entries.map(async (entry) => ({ entry, hash: await hashEntry(entry) })));
  const existing = await listExistingEntries(bindings.DB);
  const plan = planLibrarySync(existing, library, hashed, { ...options, now: options.now ?? new Date() });
  await inBatches(plan.puts, ({ key, value }) => bindings.TEMPLATES.put(key, value));
  await switchRows(bindings.DB, plan.statements);
  await inBatches(plan.deletes, (key) => bindings.TEMPLATES.delete(key));
  const { report } = plan;
  // Updated, unchanged and kept ids were already rows; only additions and removals change the set.
  const ids = new Set([...existing.map((row) => row.id), ...report.added]);
  for (const id of report.removed) ids.delete(id);
  return { report, ids };
}
