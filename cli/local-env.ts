// Local Cloudflare bindings for the CLI: the same D1/KV state `wrangler dev` serves.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { getPlatformProxy } from "wrangler";
import { type RawConfig, withDerivedConfig } from "./derived-config.ts";

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

/** Applies the D1 migrations to the local database; already-applied ones are skipped by wrangler. */
export function applyLocalMigrations(stateDir: string): void {
  wrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", stateDir], { quiet: true });
}

/**
 * Whether the local database has every migration in migrations/: wrangler records the
 * ones it applied by file name in its d1_migrations table (absent in a fresh state folder).
 */
async function hasEveryMigration(db: D1Database): Promise<boolean> {
  const files = readdirSync("migrations").filter((name) => name.endsWith(".sql"));
  try {
    const { results } = await db.prepare("SELECT name FROM d1_migrations").all<{ name: string }>();
    const applied = new Set(results.map((row) => row.name));
    return files.every((name) => applied.has(name));
  } catch {
    return false;
  }
}

/**
 * withLocalEnv on a migrated database. Asking wrangler to apply the migrations costs a
 * process and a workerd start of its own (seconds) even when none is pending, so it is
 * asked only when the database lacks one.
 */
export async function withMigratedLocalEnv<T>(stateDir: string, work: (env: Env) => Promise<T>): Promise<T> {
  // A state folder without a D1 database yet needs them all: no need to ask it first.
  if (!existsSync(join(resolve(stateDir), "v3", "d1"))) {
    applyLocalMigrations(stateDir);
    return withLocalEnv(stateDir, work);
  }
  const unmigrated = Symbol("unmigrated");
  const result = await withLocalEnv(stateDir, async (env) => ((await hasEveryMigration(env.DB)) ? { done: await work(env) } : unmigrated));
  if (result !== unmigrated) return result.done;
  applyLocalMigrations(stateDir);
  return withLocalEnv(stateDir, work);
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
