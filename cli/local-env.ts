// Local Cloudflare bindings for the CLI: the same D1/KV state `wrangler dev` serves.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { getPlatformProxy } from "./wrangler-api.ts";
import { type RawConfig, withDerivedConfig } from "./derived-config.ts";
import { withStateLock } from "./state-lock.ts";

/** Where local state lives; `wrangler dev --persist-to` takes the same folder. */
export const DEFAULT_STATE_DIR = ".wrangler/state";

/** Runs wrangler from this project's node_modules with the Node that runs us. */
export function wrangler(args: string[], options: { quiet?: boolean } = {}): void {
  const result = spawnSync(process.execPath, [join("node_modules", "wrangler", "bin", "wrangler.js"), ...args], {
    stdio: options.quiet ? ["ignore", "pipe", "pipe"] : "inherit",
    encoding: "utf8",
  });
  if (result.status !== 0) {
    const output = options.quiet ? `\n${result.stdout}${result.stderr}` : "";
    throw new Error(`wrangler ${args.join(" ")} failed${output}`);
  }
}

/** Where wrangler records applied migrations (its default `migrations_table`), so `wrangler d1 migrations apply` agrees with us. */
const MIGRATIONS_TABLE = "d1_migrations";

/**
 * Applies the migrations in migrations/ that the local database lacks, in name order,
 * each in one batch (one transaction) with its record in wrangler's table, as
 * `wrangler d1 migrations apply --local` would. In this process, because wrangler's
 * step costs a process and a workerd start of its own (about 10 s of CPU) on every
 * fresh state folder.
 */
async function applyLocalMigrations(db: D1Database): Promise<void> {
  const pending = (await pendingMigrations(db)).sort();
  for (const name of pending) {
    // D1's local engine runs every statement of a prepared multi-statement script.
    const script = readFileSync(join("migrations", name), "utf8");
    try {
      await db.batch([db.prepare(script), db.prepare(`INSERT INTO ${MIGRATIONS_TABLE} (name) VALUES (?)`).bind(name)]);
    } catch (error) {
      throw new Error(`migration ${name} failed on the local database: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/**
 * The migration files not yet recorded as applied. Only reads when none is pending,
 * so a CLI run beside a serving `npm start` does not write to the database it shares.
 */
async function pendingMigrations(db: D1Database): Promise<string[]> {
  const files = readdirSync("migrations").filter((name) => name.endsWith(".sql"));
  const { results: table } = await db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?").bind(MIGRATIONS_TABLE).all();
  if (table.length === 0) {
    await db.prepare(`CREATE TABLE ${MIGRATIONS_TABLE}(
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    name       TEXT UNIQUE,
    applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL
  )`).run();
    return files;
  }
  const { results } = await db.prepare(`SELECT name FROM ${MIGRATIONS_TABLE}`).all<{ name: string }>();
  const applied = new Set(results.map((row) => row.name));
  return files.filter((name) => !applied.has(name));
}

/**
 * Runs `write` again, up to five more times with a growing pause, when the local database
 * was locked: a serving `npm start` reads and writes the same file from another process,
 * and workerd's SQLite does not wait for a lock. For one statement (or one batch) only,
 * which SQLite applies whole or not at all; never for a run of many (an ingestion).
 */
export async function retriedWhileLocked<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      // A lock lost while D1 commits surfaces as "Failed to get session commit token"; the write did not land.
      if (attempt >= 5 || !/SQLITE_BUSY|database is locked|session commit token/.test(String(error))) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt * (1 + Math.random())));
    }
  }
}

/** withLocalEnv on a database with every migration applied, holding the state folder's lock while it works. */
export function withMigratedLocalEnv<T>(stateDir: string, work: (env: Env) => Promise<T>): Promise<T> {
  return withLocalEnv(stateDir, (env) =>
    withStateLock(stateDir, async () => {
      await retriedWhileLocked(() => applyLocalMigrations(env.DB));
      return work(env);
    }),
  );
}

/**
 * Makes the workerd that getPlatformProxy starts end with this process, even
 * when it is killed with SIGKILL and runs no cleanup: miniflare starts the
 * binary named by MINIFLARE_WORKERD_PATH, here a wrapper that watches its
 * parent (cli/workerd-with-parent.sh). Not on Windows, which has no sh.
 */
function workerdEndsWithUs(): void {
  if (process.platform === "win32" || process.env.MINIFLARE_WORKERD_PATH) return;
  // The workerd miniflare itself would run: resolved from miniflare's own folder.
  const fromMiniflare = createRequire(createRequire(import.meta.url).resolve("miniflare"));
  process.env.ALMANAC_WORKERD = (fromMiniflare("workerd") as { default: string }).default;
  process.env.MINIFLARE_WORKERD_PATH = join(dirname(fileURLToPath(import.meta.url)), "workerd-with-parent.sh");
}

/**
 * Opens the local bindings, runs `work`, and always releases them. The CLI
 * needs only D1 and KV, so the Durable Objects and the refresh Workflow are
 * left out of the proxy's configuration: it would otherwise warn that it
 * cannot run them. So are Workers AI and Vectorize, which have no local
 * emulation (--remote has them).
 */
export async function withLocalEnv<T>(stateDir: string, work: (env: Env) => Promise<T>): Promise<T> {
  workerdEndsWithUs();
  const withoutDurableObjects = (config: RawConfig): RawConfig => ({
    ...config,
    durable_objects: undefined,
    migrations: undefined,
    workflows: undefined,
    triggers: undefined,
    ai: undefined,
    vectorize: undefined,
  });
  return withDerivedConfig("local-cli", withoutDurableObjects, async (configPath) => {
    const proxy = await getPlatformProxy<Env>({ configPath, persist: { path: join(resolve(stateDir), "v3") }, remoteBindings: false, envFiles: [] });
    try {
      return await work(proxy.env);
    } finally {
      await proxy.dispose();
    }
  });
}
