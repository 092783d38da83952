// The deployed D1 database for CLI commands run with --remote, through the
// same bindings API as local runs, so the Worker's own SQL (bound parameters
// only) is what runs remotely too.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { experimental_readRawConfig, getPlatformProxy } from "wrangler";

/** Where the derived configuration is written; .wrangler/ is git-ignored. */
const REMOTE_CONFIG_DIR = join(".wrangler", "remote-cli");

/**
 * Opens the project's bindings with the D1 database marked `remote = true`,
 * runs `work`, and always releases them. Needs `wrangler login` (or
 * CLOUDFLARE_API_TOKEN) and the real `database_id` in wrangler.toml.
 */
export async function withRemoteEnv<T>(work: (env: Env) => Promise<T>): Promise<T> {
  const { rawConfig } = experimental_readRawConfig({ config: "wrangler.toml" });
  const databases: { database_id?: string }[] = rawConfig.d1_databases ?? [];
  if (databases.some((database) => /^0{8}-/.test(database.database_id ?? ""))) {
    throw new Error("wrangler.toml still has the placeholder D1 database_id; put the id printed by `npx wrangler d1 create almanac` there first");
  }
  // Remote bindings are switched on per binding in the configuration, so a copy of
  // wrangler.toml is written with D1 remote; its paths are made absolute for its new folder.
  const config = {
    ...rawConfig,
    main: rawConfig.main ? resolve(rawConfig.main) : undefined,
    d1_databases: (rawConfig.d1_databases ?? []).map((database: { migrations_dir?: string }) => ({
      ...database,
      migrations_dir: database.migrations_dir ? resolve(database.migrations_dir) : undefined,
      remote: true,
    })),
  };
  mkdirSync(REMOTE_CONFIG_DIR, { recursive: true });
  const configPath = join(REMOTE_CONFIG_DIR, "wrangler.json");
  writeFileSync(configPath, JSON.stringify(config, null, 2));
  try {
    const proxy = await getPlatformProxy<Env>({ configPath, persist: false, remoteBindings: true, envFiles: [] });
    try {
      return await work(proxy.env);
    } finally {
      await proxy.dispose();
    }
  } finally {
    rmSync(REMOTE_CONFIG_DIR, { recursive: true, force: true });
  }
}
