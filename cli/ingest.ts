// npm run ingest -- docs <dir> --base-uri <https://host[/prefix]> [--data-source <host>] [--prune] [--remote] [--persist-to <dir>]
// npm run ingest -- library <dir> [--library <name>] [--prune] [--remote] [--persist-to <dir>]
import { parseArgs } from "node:util";
import { siteFor } from "../src/documents/ingest/prepare-pages.ts";
import { describeDocsIngest, describeDocsPages, ingestDocsFolder, refuseDefaultCorpusBase } from "./ingest-docs.ts";
import { USER_LIBRARY, checkLibraryName, describeLibraryIngest, ingestLibraryFolder } from "./ingest-library.ts";
import { withEnv } from "./env.ts";
import { DEFAULT_STATE_DIR } from "./local-env.ts";
import { progressPrinter } from "./progress.ts";
import { runCli } from "./run-cli.ts";

const USAGE = `usage:
  npm run ingest -- docs <dir> --base-uri <https://host[/prefix]> [--data-source <host>] [--prune] [--remote] [--persist-to <dir>]

  npm run ingest -- library <dir> [--library <name>] [--prune] [--remote] [--persist-to <dir>]

docs: loads a folder of Markdown pages (front matter: title, description) into the local D1
database that \`npm start\` serves (--remote: the deployed one). Pages under other base URIs are
never touched.

library: loads StackQL query-library entries (<dir> holds the <family>/ folders) into the
library <name> (default "${USER_LIBRARY}"): metadata into D1, templates into KV. Invalid files
are reported with the field at fault and not served. --prune removes entries of that library
the folder no longer has; --remote writes to the deployed D1 database and KV namespace.`;

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      "base-uri": { type: "string" },
      "data-source": { type: "string" },
      library: { type: "string" },
      remote: { type: "boolean", default: false },
      prune: { type: "boolean", default: false },
      "persist-to": { type: "string", default: DEFAULT_STATE_DIR },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) return console.log(USAGE);
  const [kind, dir, ...extra] = positionals;
  if (kind === "library") return ingestLibrary(dir, extra, values);
  if (kind !== "docs") throw new Error(kind ? `unknown kind "${kind}"; expected "docs" or "library"` : "say what to ingest: docs or library");
  if (!dir || extra.length > 0) throw new Error("give exactly one folder to ingest");
  if (!values["base-uri"]) throw new Error("--base-uri is required, e.g. --base-uri https://docs.example.com");
  const site = siteFor(values["base-uri"], values["data-source"]);
  refuseDefaultCorpusBase(site);
  const progress = progressPrinter("ingest");
  // With --remote, the very code path of a local run, against the deployed D1 database, in batches within D1's limits.
  const result = await withEnv({ remote: values.remote, persistTo: values["persist-to"] }, (env) =>
    ingestDocsFolder(env.DB, dir, site, { prune: values.prune, progress: progress.update }),
  ).finally(progress.done);
  for (const line of describeDocsPages(result)) console.log(line);
  console.log(describeDocsIngest(site.baseUri, result));
}

async function ingestLibrary(
  dir: string | undefined,
  extra: string[],
  values: { library?: string; prune: boolean; remote: boolean; "persist-to": string },
): Promise<void> {
  if (!dir || extra.length > 0) throw new Error("give exactly one folder to ingest");
  const library = checkLibraryName(values.library ?? USER_LIBRARY);
  // With --remote, the very code path of a local run, against the deployed D1 database and KV namespace.
  const result = await withEnv({ remote: values.remote, persistTo: values["persist-to"] }, (env) =>
    ingestLibraryFolder(env, dir, library, { prune: values.prune }),
  );
  for (const line of describeLibraryIngest(dir, library, result)) console.log(line);
  // The valid entries are served; the exit status still tells scripts that some files were refused.
  if (result.refused.length > 0) process.exitCode = 1;
}

runCli("ingest", USAGE, main);
