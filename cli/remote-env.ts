// The deployed D1 database and KV namespace for CLI commands run with
// --remote, through the same bindings API as local runs, so the Worker's own
// code (bound parameters only) is what runs remotely too.
import { experimental_readRawConfig, getPlatformProxy } from "./wrangler-api.ts";
import { type RawConfig, withDerivedConfig } from "./derived-config.ts";

/** wrangler.toml ships all-zero ids (`00000000-0000-…` for D1, 32 zeros for KV) until the real ones are put in. */
const PLACEHOLDER_ID = /^[0-]+$/;

type D1Config = NonNullable<RawConfig["d1_databases"]>[number];
type KvConfig = NonNullable<RawConfig["kv_namespaces"]>[number];

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
  const { d1_databases: databases = [], kv_namespaces: namespaces = [] } = rawConfig as RawConfig;
  const placeholders = placeholderIds(databases, namespaces);
  if (placeholders.length > 0) {
    throw new Error(`wrangler.toml still has placeholder ids; put the real ones there first: ${placeholders.join("; ")}`);
  }
  // Remote bindings are switched on per binding in the configuration.
  const remote = (config: RawConfig): RawConfig => ({
    ...config,
    // The CLI reads and writes data; the Workflow runs only in the deployed Worker.
    workflows: undefined,
    triggers: undefined,
    d1_databases: (config.d1_databases ?? []).map((database) => ({ ...database, remote: true })),
    kv_namespaces: (config.kv_namespaces ?? []).map((namespace) => ({ ...namespace, remote: true })),
    // Hybrid retrieval's bindings, when wrangler.toml declares them (they exist only remotely anyway).
    ...(config.ai ? { ai: { ...(config.ai as object), remote: true } } : {}),
    ...(Array.isArray(config.vectorize) ? { vectorize: config.vectorize.map((index: object) => ({ ...index, remote: true })) } : {}),
  });
  return withDerivedConfig("remote-cli", remote, async (configPath) => {
    const proxy = await getPlatformProxy<Env>({ configPath, persist: false, remoteBindings: true, envFiles: [] });
    try {
      return await work(proxy.env);
    } finally {
      await proxy.dispose();
    }
  });
}
