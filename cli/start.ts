// npm start: load the default corpus into local D1 and the default query library into
// local D1/KV, then serve the Worker with `wrangler dev`.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { siteFor } from "../src/documents/ingest/prepare-pages.ts";
import { DEFAULT_CORPUS } from "../src/documents/default-corpus.ts";
import { describeDocsIngest, ingestDocsFolder } from "./ingest-docs.ts";
import { loadDefaultLibrary } from "./ingest-library.ts";
import { updateLibrarySnapshot } from "./library-snapshot.ts";
import { DEFAULT_STATE_DIR, withMigratedLocalEnv } from "./local-env.ts";
import { releaseInterruptedRuns } from "../src/sources/sources.ts";
import { EMBEDDINGS_VAR_NAMES, cliSemanticSearch, embeddingsVars, varArguments } from "./embeddings-vars.ts";

/** The names a browser may use to reach a local server; anything else is DNS rebinding. */
const LOOPBACK_HOSTS = "localhost,127.0.0.1,[::1]";

async function main(argv: string[]): Promise<void> {
  const { stateDir, passThrough } = splitArguments(argv);
  const port = process.env.PORT ?? "8787";

  const site = siteFor(DEFAULT_CORPUS.baseUri);
  const library = await updateLibrarySnapshot();
  if (library.written) console.log("src/generated/default-library.ts regenerated from corpus/library");
  // The Worker must see the embeddings settings the ingestion used: those from the environment are passed on as --var
  // (except the key, a secret that would show in the process list: wrangler dev reads it from .dev.vars).
  const given = varArguments(passThrough);
  const fromEnvironment = EMBEDDINGS_VAR_NAMES.filter((name) => name !== "EMBEDDINGS_API_KEY").flatMap((name) =>
    given[name] === undefined && process.env[name] !== undefined ? ["--var", `${name}:${process.env[name]}`] : [],
  );
  await withMigratedLocalEnv(stateDir, async (env) => {
    // Refused here, before the server starts, when hybrid retrieval is misconfigured.
    const embeddings = cliSemanticSearch(embeddingsVars(env, given));
    const corpus = await ingestDocsFolder(env.DB, DEFAULT_CORPUS.dir, site, { prune: true, embeddings });
    console.log(`default corpus ${describeDocsIngest(site.baseUri, corpus)}`);
    // Only ids the default library owns are (re)written; entries a user ingested are never touched.
    console.log(await loadDefaultLibrary(env, library.entries));
    const interrupted = await releaseInterruptedRuns(env.DB, "the dev server stopped during this run; nothing of it was published; the next scheduled event runs it again", Date.now());
    if (interrupted.length > 0) console.log(`sources interrupted by the last stop, due again: ${interrupted.join(", ")}`);
  });

  const wranglerDev = [
    join("node_modules", "wrangler", "bin", "wrangler.js"),
    "dev",
    ...["--port", port, "--persist-to", stateDir],
    // Serves /__scheduled: a request there fires the cron, which refreshes due sources (corpus/docs/deploying.md, "Sources kept fresh").
    "--test-scheduled",
    ...(configuresAllowedHosts() ? [] : ["--var", `ALLOWED_HOSTS:${LOOPBACK_HOSTS}`]),
    ...fromEnvironment,
    ...passThrough,
  ];
  console.log(`Almanac: MCP endpoint http://localhost:${port}/mcp (Streamable HTTP); open http://localhost:${port} in a browser to check it is up.`);
  console.log(`Sources (npm run sources) refresh when due: curl http://localhost:${port}/__scheduled fires the cron now.`);
  const dev = spawn(process.execPath, wranglerDev, { stdio: "inherit" });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => dev.kill(signal));
  dev.on("exit", (code) => process.exit(code ?? 0));
}

/**
 * Whether the user chose ALLOWED_HOSTS themselves (in .dev.vars or on the
 * command line); a `--var` from us would silently override their choice.
 */
function configuresAllowedHosts(): boolean {
  const devVars = existsSync(".dev.vars") ? readFileSync(".dev.vars", "utf8") : "";
  return /^\s*ALLOWED_HOSTS\s*=/m.test(devVars) || process.argv.some((arg) => arg.startsWith("ALLOWED_HOSTS:"));
}

/** Our one flag, `--persist-to <dir>`; every other argument goes to `wrangler dev` untouched. */
function splitArguments(argv: string[]): { stateDir: string; passThrough: string[] } {
  let stateDir: string = DEFAULT_STATE_DIR;
  const passThrough: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] ?? "";
    if (arg === "--persist-to") {
      const dir = argv[i + 1];
      if (!dir) throw new Error("--persist-to needs a folder");
      stateDir = dir;
      i += 1;
    } else if (arg.startsWith("--persist-to=")) {
      stateDir = arg.slice("--persist-to=".length);
    } else {
      passThrough.push(arg);
    }
  }
  return { stateDir, passThrough };
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(`start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
