// A copy of wrangler.toml, changed for one CLI purpose, for getPlatformProxy.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { experimental_readRawConfig } from "./wrangler-api.ts";

/** The parts of wrangler.toml the CLI reads or rewrites. */
export interface RawConfig {
  main?: string;
  d1_databases?: { binding?: string; database_id?: string; migrations_dir?: string }[];
  kv_namespaces?: { binding?: string; id?: string }[];
  durable_objects?: unknown;
  migrations?: unknown;
  [key: string]: unknown;
}

/**
 * Writes `change(wrangler.toml)` as JSON under .wrangler/<name>-<pid>/ (git-ignored),
 * with paths made absolute for its new folder, runs `work` with its path, and
 * always removes it.
 */
export async function withDerivedConfig<T>(name: string, change: (config: RawConfig) => RawConfig, work: (configPath: string) => Promise<T>): Promise<T> {
  const { rawConfig } = experimental_readRawConfig({ config: "wrangler.toml" });
  const config = rawConfig as RawConfig;
  const absolute: RawConfig = {
    ...config,
    main: config.main ? resolve(config.main) : undefined,
    d1_databases: (config.d1_databases ?? []).map((database) => ({
      ...database,
      migrations_dir: database.migrations_dir ? resolve(database.migrations_dir) : undefined,
    })),
  };
  // One folder per process: two CLI commands may run at once (npm start beside an ingest).
  const dir = join(".wrangler", `${name}-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const configPath = join(dir, "wrangler.json");
  writeFileSync(configPath, JSON.stringify(change(absolute), null, 2));
  try {
    return await work(configPath);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
