// npm run ingest -- docs <dir> --base-uri <https://host[/prefix]> [--data-source <host>] [--prune] [--persist-to <dir>]
import { parseArgs } from "node:util";
import { siteFor } from "../src/documents/ingest.ts";
import { describeDocsIngest, ingestDocsFolder } from "./ingest-docs.ts";
import { DEFAULT_STATE_DIR, applyLocalMigrations, withLocalEnv } from "./local-env.ts";

const USAGE = `usage:
  npm run ingest -- docs <dir> --base-uri <https://host[/prefix]> [--data-source <host>] [--prune] [--persist-to <dir>]

Loads a folder of Markdown pages (front matter: title, description) into the local D1
database that \`npm start\` serves. Pages under other base URIs are never touched.`;

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      "base-uri": { type: "string" },
      "data-source": { type: "string" },
      prune: { type: "boolean", default: false },
      "persist-to": { type: "string", default: DEFAULT_STATE_DIR },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) return console.log(USAGE);
  const [kind, dir, ...extra] = positionals;
  if (kind !== "docs") throw new Error(kind ? `unknown kind "${kind}"; expected "docs"` : "say what to ingest: docs");
  if (!dir || extra.length > 0) throw new Error("give exactly one folder to ingest");
  if (!values["base-uri"]) throw new Error("--base-uri is required, e.g. --base-uri https://docs.example.com");
  const site = siteFor(values["base-uri"], values["data-source"]);
  const stateDir = values["persist-to"];
  applyLocalMigrations(stateDir);
  const result = await withLocalEnv(stateDir, (env) => ingestDocsFolder(env.DB, dir, site, { prune: values.prune }));
  console.log(describeDocsIngest(site.baseUri, result));
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(`ingest: ${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
  process.exit(1);
});
