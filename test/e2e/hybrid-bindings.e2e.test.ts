// Hybrid retrieval's remote-only bindings, declared as a deployment declares them: wrangler.toml
// keeps `[ai]` and `[[vectorize]]` commented (neither runs locally), so this derives a config with
// both and checks that `wrangler deploy --dry-run` accepts it and that the adapters type-check
// against the `Env` that `wrangler types` generates from it.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { experimental_readRawConfig } from "wrangler";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let dir: string;
let configPath: string;

const wrangler = (args: string[]) =>
  spawnSync(process.execPath, ["node_modules/wrangler/bin/wrangler.js", ...args], { encoding: "utf8", timeout: 180_000 });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "almanac-hybrid-bindings-"));
  const { rawConfig } = experimental_readRawConfig({ config: "wrangler.toml" });
  const config = rawConfig as Record<string, unknown> & { main: string; d1_databases: { migrations_dir?: string }[] };
  configPath = join(dir, "wrangler.json");
  writeFileSync(
    configPath,
    JSON.stringify({
      ...config,
      main: resolve(config.main),
      d1_databases: config.d1_databases.map((database) => ({ ...database, migrations_dir: resolve(database.migrations_dir ?? "migrations") })),
      vars: { ...(config.vars as object), EMBEDDINGS: "workers-ai", VECTOR_INDEX: "vectorize" },
      ai: { binding: "AI" },
      vectorize: [{ binding: "VECTORIZE", index_name: "almanac" }],
    }),
  );
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a deployment with Workers AI and Vectorize", () => {
  it("is accepted by wrangler deploy --dry-run with both bindings", () => {
    const build = wrangler(["deploy", "--dry-run", "--config", configPath, "--outdir", join(dir, "out")]);
    expect(build.status, `${build.stdout}${build.stderr}`).toBe(0);
    expect(build.stdout).toMatch(/env\.VECTORIZE \(almanac\)\s+Vectorize Index/);
    expect(build.stdout).toMatch(/env\.AI\s+AI/);
  });

  it("type-checks the adapters against the Env wrangler types generates for it", () => {
    const types = wrangler(["types", "--config", configPath, "--strict-vars=false", join(dir, "env.d.ts")]);
    expect(types.status, `${types.stdout}${types.stderr}`).toBe(0);
    const src = resolve("src/embeddings");
    writeFileSync(
      join(dir, "check.ts"),
      [
        `import { readEmbeddingsConfig } from "${src}/config.ts";`,
        `import { semanticSearchFor } from "${src}/semantic-search.ts";`,
        `import { vectorizeIndex } from "${src}/vectorize-index.ts";`,
        `import { workersAiEmbedder } from "${src}/workers-ai.ts";`,
        "declare const env: Env;",
        "export const index = vectorizeIndex(env.VECTORIZE);",
        "export const embedder = workersAiEmbedder(env.AI);",
        'export const mode: "off" | "hybrid" | "invalid" = readEmbeddingsConfig(env).mode;',
        "export const search = semanticSearchFor(env);",
      ].join("\n"),
    );
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { target: "es2022", lib: ["es2023"], module: "es2022", moduleResolution: "bundler", strict: true, noEmit: true, skipLibCheck: true, allowImportingTsExtensions: true, jsx: "react-jsx", jsxImportSource: "hono/jsx", types: [] },
        files: [join(dir, "env.d.ts"), resolve("src/observability/async-hooks.d.ts"), join(dir, "check.ts")],
      }),
    );
    const check = spawnSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", join(dir, "tsconfig.json")], { encoding: "utf8", timeout: 180_000 });
    expect(check.status, `${check.stdout}${check.stderr}`).toBe(0);
  });
});
