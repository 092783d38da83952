// Local Cloudflare bindings for the CLI: the same D1/KV state `wrangler dev` serves.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { getPlatformProxy } from "wrangler";

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

/** Opens the local bindings, runs `work`, and always releases them. */
export async function withLocalEnv<T>(stateDir: string, work: (env: Env) => Promise<T>): Promise<T> {
  // The proxy warns that Durable Objects it cannot run locally exist; the CLI only needs D1 and KV.
  process.env.WRANGLER_LOG ??= "error";
  const proxy = await getPlatformProxy<Env>({ persist: { path: join(stateDir, "v3") }, remoteBindings: false });
  try {
    return await work(proxy.env);
  } finally {
    await proxy.dispose();
  }
}
