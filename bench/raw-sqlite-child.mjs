// The raw floor: runs SQL statements on a SQLite file with better-sqlite3 and
// times only their execution. Plain JavaScript, because it runs under the
// Node that compiled better-sqlite3's addon (npm install's Node), which may
// not be the Node 24 that runs the benchmark and strips types (bench/raw-sqlite.ts).
//
// Protocol, one JSON object per line: in { id, statements: [{ sql, params }] }
// (the first message is { path }), out { id, rows, ms } or { id, error }.
// @ts-expect-error better-sqlite3 ships no types; the two calls used are typed below.
import Database from "better-sqlite3";
import { createInterface } from "node:readline";

/** @typedef {{ all(...params: unknown[]): unknown[] }} Statement */
/** @typedef {{ prepare(sql: string): Statement }} SqliteDatabase */
/** @typedef {{ sql: string, params: unknown[] }} BoundStatement */

/** @type {SqliteDatabase | undefined} */
let db;
/** @type {Map<string, { stmt: Statement, order: number[] }>} */
const prepared = new Map();

/**
 * better-sqlite3 binds only anonymous `?` by position, while D1 and the
 * Worker's SQL use SQLite's numbered `?NNN` (and a bare `?` after them takes
 * the next number). Rewrites the SQL to bare `?` and gives, per placeholder,
 * the index of the value it takes. Quoted text is left alone.
 *
 * @param {string} sql
 * @returns {{ text: string, order: number[] }}
 */
function positional(sql) {
  /** @type {number[]} */
  const order = [];
  let largest = 0;
  const text = sql.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|\?(\d*)/g, (/** @type {string} */ match, /** @type {string | undefined} */ digits) => {
    if (!match.startsWith("?")) return match;
    const index = digits ? Number(digits) : largest + 1;
    largest = Math.max(largest, index);
    order.push(index - 1);
    return "?";
  });
  return { text, order };
}

/** @param {string} sql */
function statement(sql) {
  // D1 caches prepared statements too; preparing once keeps the floor a floor.
  let entry = prepared.get(sql);
  if (!entry) {
    const { text, order } = positional(sql);
    if (!db) throw new Error("no database opened yet: send { path } first");
    entry = { stmt: db.prepare(text), order };
    prepared.set(sql, entry);
  }
  return entry;
}

for await (const line of createInterface({ input: process.stdin })) {
  const message = JSON.parse(line);
  try {
    if (message.path) {
      db = new Database(message.path, { readonly: true, fileMustExist: true });
      process.stdout.write(`${JSON.stringify({ id: message.id, rows: [], ms: 0 })}\n`);
      continue;
    }
    const started = performance.now();
    const rows = /** @type {BoundStatement[]} */ (message.statements).map(({ sql, params }) => {
      const { stmt, order } = statement(sql);
      return stmt.all(...order.map((index) => params[index]));
    });
    const ms = performance.now() - started;
    process.stdout.write(`${JSON.stringify({ id: message.id, rows: message.withRows ? rows : rows.map((r) => r.slice(0, 0)), count: rows.map((r) => r.length), ms })}\n`);
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ id: message.id, error: String(error) })}\n`);
  }
}
