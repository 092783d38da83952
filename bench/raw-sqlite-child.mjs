// The raw floor: runs SQL statements on a SQLite file with better-sqlite3 and
// times only their execution. Plain JavaScript, because it runs under the
// Node that compiled better-sqlite3's addon (npm install's Node), which may
// not be the Node 24 that runs the benchmark and strips types (bench/raw-sqlite.ts).
//
// Protocol, one JSON object per line: in { id, statements: [{ sql, params }] }
// (the first message is { path }), out { id, rows, ms } or { id, error }.
import Database from "better-sqlite3";
import { createInterface } from "node:readline";

let db;
const prepared = new Map();

/**
 * better-sqlite3 binds only anonymous `?` by position, while D1 and the
 * Worker's SQL use SQLite's numbered `?NNN` (and a bare `?` after them takes
 * the next number). Rewrites the SQL to bare `?` and gives, per placeholder,
 * the index of the value it takes. Quoted text is left alone.
 */
function positional(sql) {
  const order = [];
  let largest = 0;
  const text = sql.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|\?(\d*)/g, (match, digits) => {
    if (!match.startsWith("?")) return match;
    const index = digits ? Number(digits) : largest + 1;
    largest = Math.max(largest, index);
    order.push(index - 1);
    return "?";
  });
  return { text, order };
}

function statement(sql) {
  // D1 caches prepared statements too; preparing once keeps the floor a floor.
  let entry = prepared.get(sql);
  if (!entry) {
    const { text, order } = positional(sql);
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
    const rows = message.statements.map(({ sql, params }) => {
      const { stmt, order } = statement(sql);
      return stmt.all(...order.map((index) => params[index]));
    });
    const ms = performance.now() - started;
    process.stdout.write(`${JSON.stringify({ id: message.id, rows: message.withRows ? rows : rows.map((r) => r.slice(0, 0)), count: rows.map((r) => r.length), ms })}\n`);
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ id: message.id, error: String(error) })}\n`);
  }
}
