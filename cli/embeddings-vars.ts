// Hybrid retrieval's configuration for CLI commands: the Worker's variables, read the way `wrangler dev` would see them.
import { existsSync, readFileSync } from "node:fs";
import { describeProblems, readEmbeddingsConfig, type EmbeddingsVars } from "../src/embeddings/config.ts";
import { semanticSearchOf, type SemanticSearch } from "../src/embeddings/semantic-search.ts";

/** The variables hybrid retrieval reads (EMBEDDINGS_API_KEY is a secret: .dev.vars or the environment). */
export const EMBEDDINGS_VAR_NAMES = ["EMBEDDINGS", "EMBEDDINGS_URL", "EMBEDDINGS_MODEL", "EMBEDDINGS_API_KEY", "VECTOR_INDEX"] as const;
type EmbeddingsVarName = (typeof EMBEDDINGS_VAR_NAMES)[number];

/**
 * `KEY=value` lines of a .dev.vars file (dotenv syntax: `#` comments, optional quotes).
 *
 * @example parseDevVars('EMBEDDINGS="http"\n# note\nVECTOR_INDEX=d1') // { EMBEDDINGS: "http", VECTOR_INDEX: "d1" }
 */
export function parseDevVars(text: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!match?.[1]) continue;
    const raw = match[2] ?? "";
    vars[match[1]] = /^(["']).*\1$/.test(raw) ? raw.slice(1, -1) : raw;
  }
  return vars;
}

/**
 * `--var NAME:VALUE` arguments (wrangler dev's syntax) for the embeddings variables.
 *
 * @example varArguments(["--var", "EMBEDDINGS:http", "--port", "1"]) // { EMBEDDINGS: "http" }
 */
export function varArguments(argv: readonly string[]): Partial<Record<EmbeddingsVarName, string>> {
  const vars: Partial<Record<EmbeddingsVarName, string>> = {};
  for (let i = 0; i < argv.length; i += 1) {
    const value = argv[i] === "--var" ? argv[i + 1] : argv[i]?.startsWith("--var=") ? argv[i]?.slice("--var=".length) : undefined;
    if (value === undefined) continue;
    const colon = value.indexOf(":");
    const name = value.slice(0, colon) as EmbeddingsVarName;
    if (colon > 0 && EMBEDDINGS_VAR_NAMES.includes(name)) vars[name] = value.slice(colon + 1);
  }
  return vars;
}

/**
 * The embeddings variables a CLI command runs with, each from the last of:
 * wrangler.toml's [vars] (in the bindings' `env`), .dev.vars, the process
 * environment, and `overrides` (npm start's `--var` arguments, eval's flags).
 */
export function embeddingsVars(env: Partial<EmbeddingsVars>, overrides: Partial<Record<EmbeddingsVarName, string>> = {}): EmbeddingsVars {
  const devVars = existsSync(".dev.vars") ? parseDevVars(readFileSync(".dev.vars", "utf8")) : {};
  const vars: EmbeddingsVars = { AI: env.AI, VECTORIZE: env.VECTORIZE };
  for (const name of EMBEDDINGS_VAR_NAMES) {
    const value = overrides[name] ?? process.env[name] ?? devVars[name] ?? env[name];
    if (value !== undefined) vars[name] = value;
  }
  return vars;
}

/**
 * The hybrid retrieval a CLI ingestion embeds with, or undefined when
 * EMBEDDINGS=off. A misconfiguration is refused here, before anything is
 * written, with what to set.
 */
export function cliSemanticSearch(vars: EmbeddingsVars): SemanticSearch | undefined {
  const config = readEmbeddingsConfig(vars);
  if (config.mode === "invalid") throw new Error(describeProblems(config.problems));
  return config.mode === "hybrid" ? semanticSearchOf(config) : undefined;
}
