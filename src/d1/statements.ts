import type { D1Reader } from "./sessions.ts";
import { timed } from "../observability/timings.ts";

/** A statement as it reaches SQLite: SQL with numbered parameters and their values. */
export interface BoundStatement {
  sql: string;
  params: readonly unknown[];
}

/**
 * Runs read statements together and gives each one's rows, in order. The
 * Worker runs them as one D1 batch (one round trip); the benchmark runs the
 * very same statements on the raw SQLite file, so both measure one query plan.
 */
export interface StatementRunner {
  rows(statements: readonly BoundStatement[]): Promise<Record<string, unknown>[][]>;
}

/**
 * A StatementRunner over D1 (the database or a read session): one statement
 * is one query, several are one batch; either way timed as `d1`.
 *
 * @example const [rows] = await d1Statements(db).rows([{ sql: "SELECT 1 AS one", params: [] }]);
 */
export function d1Statements(db: D1Reader): StatementRunner {
  return {
    async rows(statements) {
      const prepared = statements.map(({ sql, params }) => db.prepare(sql).bind(...params));
      if (prepared.length === 1) {
        const { results } = await timed("d1", () => (prepared[0] as D1PreparedStatement).all<Record<string, unknown>>());
        return [results];
      }
      const results = await timed("d1", () => db.batch<Record<string, unknown>>(prepared));
      return results.map((result) => result.results);
    },
  };
}

/**
 * `db.prepare`, with each distinct SQL prepared once and bound as often as
 * needed (`bind` returns a new statement). Writers of many rows use it: in
 * the Worker preparing is cheap, but through the CLI's local proxy
 * (getPlatformProxy) every `prepare` and `bind` is a round trip to workerd.
 *
 * @example const prepare = preparedOnce(db); pages.map((page) => prepare("INSERT INTO t (name) VALUES (?1)").bind(page.name))
 */
export function preparedOnce(db: D1Database): (sql: string) => D1PreparedStatement {
  const prepared = new Map<string, D1PreparedStatement>();
  return (sql) => {
    let statement = prepared.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      prepared.set(sql, statement);
    }
    return statement;
  };
}
