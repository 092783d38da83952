// The deployed D1 database and KV namespace for CLI commands run with
// --remote, through the same bindings API as local runs, so the Worker's own
// code (bound parameters only) is what runs remotely too.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { experimental_readRawConfig, getPlatformProxy } from "wrangler";

/** Where the derived configuration is written; .wrangler/ is git-ignored. */
const REMOTE_CONFIG_DIR = join(".wrangler", "remote-cli");

/** wrangler.toml ships all-zero ids (`00000000-0000-…` for D1, 32 zeros for KV) until the real ones are put in. */
const PLACEHOLDER_ID = /^[0-]+$/;

interface D1Config {
  binding?: string;
  database_id?: string;
  migrations_dir?: string;
}

interface KvConfig {
  binding?: string;
  id?: string;
}

/** What still has its placeholder id, with the command that prints the real one. */
function placeholderIds(databases: readonly D1Config[], namespaces: readonly KvConfig[]): string[] {
  return [
    ...databases
      .filter((database) => PLACEHOLDER_ID.test(database.database_id ?? ""))
      .map((database) => `D1 database_id of ${database.binding ?? "?"} (\`npx wrangler d1 create almanac\` prints it)`),
    ...namespaces
      .filter((namespace) => PLACEHOLDER_ID.test(namespace.id ?? ""))
      .map((namespace) => `KV namespace id of ${namespace.binding ?? "?"} (\`npx wrangler kv namespace create ${namespace.binding ?? "TEMPLATES"}\` prints it)`),
  ];
}

/**
 * Opens the project's bindings with the D1 database and the KV namespace
 * marked `remote = true`, runs `work`, and always releases them. Needs
 * `wrangler login` (or CLOUDFLARE_API_TOKEN) and the real ids in
 * wrangler.toml; with a placeholder id it fails before contacting anything.
 *
 * @example await withRemoteEnv((env) => listApiKeys(env.DB))
 */
export async function withRemoteEnv<T>(work: (env: Env) => Promise<T>): Promise<T> {
  const { rawConfig } = experimental_readRawConfig({ config: "wrangler.toml" });
  const databases: D1Config[] = rawConfig.d1_databases ?? [];
  const namespaces: KvConfig[] = rawConfig.kv_namespaces ?? [];
  const placeholders = placeholderIds(databases, namespaces);
  if (placeholders.length > 0) {
    throw new Error(`wrangler.toml still has placeholder ids; put the real ones there first: ${placeholders.join("; ")}`);
  }
  // Remote bindings are switched on per binding in the configuration, so a copy of
  // wrangler.toml is written with D1 and KV remote; its paths are made absolute for its new folder.
  const config = {
    ...rawConfig,
    main: rawConfig.main ? resolve(rawConfig.main) : undefined,
    d1_databases: databases.map((database) => ({
      ...database,
      migrations_dir: database.migrations_dir ? resolve(database.migrations_dir) : undefined,
      remote: true,
    })),
    kv_namespaces: namespaces.map((namespace) => ({ ...namespace, remote: true })),
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
