// npm run ingest -- docs <dir> --base-uri <https://host[/prefix]> [--data-source <host>] [--version <label> [--current]] [--prune] [--remote] [--persist-to <dir>]
// npm run ingest -- archive <URL|file.tar.gz> --base-uri <https://host[/prefix]> [--path <dir>] [--data-source <host>] [--version <label> [--current]] [--prune] [--remote] [--persist-to <dir>]
// npm run ingest -- llms <URL of llms.txt|llms-full.txt> [--base-uri <URI>] [--skip-optional] [--data-source <host>] [--version <label> [--current]] [--prune] [--remote] [--persist-to <dir>]
// npm run ingest -- remove-version <label> [--data-source <host>] [--remote] [--persist-to <dir>]
// npm run ingest -- library <dir> [--library <name>] [--prune] [--remote] [--persist-to <dir>]
import { parseArgs } from "node:util";
import { siteFor } from "../src/documents/ingest/prepare-pages.ts";
import { type Connect, describeDocsIngest, describeDocsPages, describeVersionRemoval, ingestDocsFolder, refuseDefaultCorpusBase } from "./ingest-docs.ts";
import { describeArchiveRead, ingestArchive } from "./ingest-archive.ts";
import { describeLlmsRead, ingestLlms } from "./ingest-llms.ts";
import { removeVersion } from "../src/documents/ingest/write-corpus.ts";
import { VERSION_OPTIONS, versionOption } from "./version-option.ts";
import { AUDIENCE_OPTIONS, audienceOption, describeAudiences } from "./audience-option.ts";
import { setSourceAudiences } from "../src/documents/access/visibility.ts";
import type { SiteVersion } from "../src/documents/versions.ts";
import { USER_LIBRARY, checkLibraryName, describeLibraryIngest, ingestLibraryFolder } from "./ingest-library.ts";
import { withEnv } from "./env.ts";
import { cliSemanticSearch, embeddingsVars } from "./embeddings-vars.ts";
import { DEFAULT_STATE_DIR } from "./local-env.ts";
import { progressPrinter } from "./progress.ts";
import { runCli, UsageError } from "./run-cli.ts";
import { ingestSiteCommand } from "./ingest-site.ts";

const USAGE = `usage:
  npm run ingest -- docs <dir> --base-uri <https://host[/prefix]> [--data-source <host>] [--version <label> [--current]] [--audience <a,b>|--public] [--prune] [--remote] [--persist-to <dir>]

  npm run ingest -- remove-version <label> [--data-source <host>] [--remote] [--persist-to <dir>]

  npm run ingest -- archive <URL|file.tar.gz> --base-uri <https://host[/prefix]> [--path <dir>] [--data-source <host>] [--prune] [--remote] [--persist-to <dir>]

  npm run ingest -- llms <URL of an llms.txt or llms-full.txt> [--base-uri <URI>] [--skip-optional] [--data-source <host>] [--prune] [--remote] [--persist-to <dir>]

  npm run ingest -- library <dir> [--library <name>] [--prune] [--remote] [--persist-to <dir>]

docs: loads a folder of Markdown pages (front matter: title, description) into the local D1
database that \`npm start\` serves (--remote: the deployed one). Pages under other base URIs are
never touched. With EMBEDDINGS set (wrangler.toml, .dev.vars or the environment), new and
changed chunks are embedded too.

archive: reads the Markdown pages of a repository snapshot (.tar.gz or .tar; GitHub's and GitLab's
archive URLs work, and their single top folder is stripped), under --path if given, then loads
them as docs does. An entry leaving the archive (.., an absolute path, a link pointing out) or an
archive expanding past 512 MiB is refused, and nothing is written.

llms: fetches the pages an llms.txt links (## Optional too, unless --skip-optional), or splits an
llms-full.txt into its pages, on the file's origin only, then loads them as docs does. Names are
documents/<host>/<path> of each page's URL (a .md suffix dropped); --base-uri maps the origin.

--version <label> ingests the folder as that version of its data source (free text: v2, 3.x,
2026-10). Each version needs its own base URI, as versioned sites publish them
(https://docs.example.com/v2): a page's name is documents/ + its URI, and a base URI already
holding another version is refused. Searches and answers see each data source's current version
(plus unversioned pages) unless a filter names one: the version last ingested with --current,
else the one added last. Re-ingesting a version with --current makes it current again.

--audience team-a[,team-b] restricts the data source to those audiences before any page is
written: only API keys carrying one of them see its pages, on every door (--public opens it
again). Without either, a data source keeps the audiences it has (public by default);
npm run sources -- audience changes them later without re-ingesting.

remove-version: deletes exactly the pages of that version (--data-source when two data sources
have a version of that label); the data source's current version is worked out again.

library: loads StackQL query-library entries (<dir> holds the <family>/ folders) into the
library <name> (default "${USER_LIBRARY}"): metadata into D1, templates into KV. Invalid files
are reported with the field at fault and not served. --prune removes entries of that library
the folder no longer has; --remote writes to the deployed D1 database and KV namespace.`;

async function main(argv: string[]): Promise<void> {
  // `site` has options of its own (cli/ingest-site.ts; its usage: npm run ingest -- site --help).
  if (argv[0] === "site") return ingestSiteCommand(argv.slice(1));
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      "base-uri": { type: "string" },
      "data-source": { type: "string" },
      library: { type: "string" },
      path: { type: "string" },
      "skip-optional": { type: "boolean", default: false },
      remote: { type: "boolean", default: false },
      prune: { type: "boolean", default: false },
      ...VERSION_OPTIONS,
      ...AUDIENCE_OPTIONS,
      "persist-to": { type: "string", default: DEFAULT_STATE_DIR },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) return console.log(USAGE);
  const [kind, dir, ...extra] = positionals;
  // Parsed once for every kind that writes pages; the library has no versions.
  const version = versionOption(values);
  const audiences = audienceOption(values);
  if (kind === "library") {
    if (version) throw new UsageError("--version and --current are for documentation (docs, archive, llms, site); library entries have no versions");
    if (audiences) throw new UsageError("--audience and --public are for documentation (docs, archive, llms, site); the query library is public");
    return ingestLibrary(dir, extra, values);
  }
  if (kind === "remove-version") return removeVersionCommand(dir, extra, values);
  if (kind === "archive") return ingestArchiveCommand(dir, extra, values, version, audiences);
  if (kind === "llms") return ingestLlmsCommand(dir, extra, values, version, audiences);
  if (kind !== "docs") throw new Error(kind ? `unknown kind "${kind}"; expected "docs", "archive", "llms", "site", "library" or "remove-version"` : "say what to ingest: docs, archive, llms, site or library");
  if (!dir || extra.length > 0) throw new UsageError("give exactly one folder to ingest");
  if (!values["base-uri"]) throw new UsageError("--base-uri is required, e.g. --base-uri https://docs.example.com");
  const site = siteFor(values["base-uri"], values["data-source"], version);
  refuseDefaultCorpusBase(site);
  await restrictFirst(values, site.dataSource, audiences);
  const progress = progressPrinter("ingest");
  // With --remote, the very code path of a local run, against the deployed D1 database, in batches within D1's limits.
  // EMBEDDINGS and friends as the Worker reads them (embeddings-vars.ts); a misconfiguration stops the run before it writes.
  const result = await withEnv({ remote: values.remote, persistTo: values["persist-to"] }, (env) =>
    ingestDocsFolder(env.DB, dir, site, { prune: values.prune, progress: progress.update, embeddings: cliSemanticSearch(embeddingsVars(env)) }),
  ).finally(progress.done);
  for (const line of describeDocsPages(result)) console.log(line);
  console.log(describeDocsIngest(site.baseUri, result));
}

async function removeVersionCommand(label: string | undefined, extra: string[], values: { "data-source"?: string; remote: boolean; "persist-to": string }): Promise<void> {
  if (!label || extra.length > 0) throw new UsageError('give exactly one version label to remove, e.g. npm run ingest -- remove-version v1 --data-source docs.example.com');
  const removed = await withEnv({ remote: values.remote, persistTo: values["persist-to"] }, (env) => removeVersion(env.DB, label.trim(), values["data-source"]));
  console.log(describeVersionRemoval(removed));
}

async function ingestLibrary(
  dir: string | undefined,
  extra: string[],
  values: { library?: string; prune: boolean; remote: boolean; "persist-to": string },
): Promise<void> {
  if (!dir || extra.length > 0) throw new UsageError("give exactly one folder to ingest");
  const library = checkLibraryName(values.library ?? USER_LIBRARY);
  // With --remote, the very code path of a local run, against the deployed D1 database and KV namespace.
  const result = await withEnv({ remote: values.remote, persistTo: values["persist-to"] }, (env) =>
    ingestLibraryFolder(env, dir, library, { prune: values.prune }),
  );
  for (const line of describeLibraryIngest(dir, library, result)) console.log(line);
  // The valid entries are served; the exit status still tells scripts that some files were refused.
  if (result.refused.length > 0) process.exitCode = 1;
}

interface ReaderValues {
  "base-uri"?: string;
  "data-source"?: string;
  path?: string;
  "skip-optional": boolean;
  prune: boolean;
  remote: boolean;
  "persist-to": string;
}

async function ingestArchiveCommand(source: string | undefined, extra: string[], values: ReaderValues, version: SiteVersion | undefined, audiences: string[] | undefined): Promise<void> {
  if (!source || extra.length > 0) throw new UsageError("give exactly one archive: a URL or a file of a .tar.gz");
  if (!values["base-uri"]) throw new UsageError("--base-uri is required: where the archive's pages are published, e.g. --base-uri https://docs.example.com");
  const site = siteFor(values["base-uri"], values["data-source"], version);
  refuseDefaultCorpusBase(site);
  await restrictFirst(values, site.dataSource, audiences);
  const progress = progressPrinter("ingest");
  const connect = connectWithEmbeddings(values);
  const result = await ingestArchive(source, values.path, connect, site, { prune: values.prune, progress: progress.update }).finally(progress.done);
  for (const line of [...describeArchiveRead(result), ...describeDocsPages(result)]) console.log(line);
  console.log(describeDocsIngest(site.baseUri, result));
}

async function ingestLlmsCommand(url: string | undefined, extra: string[], values: ReaderValues, version: SiteVersion | undefined, audiences: string[] | undefined): Promise<void> {
  if (!url || extra.length > 0) throw new UsageError("give exactly one URL: an llms.txt or an llms-full.txt");
  await restrictFirst(values, siteFor(values["base-uri"] ?? new URL(url).origin, values["data-source"]).dataSource, audiences);
  const progress = progressPrinter("ingest");
  const connect = connectWithEmbeddings(values);
  const result = await ingestLlms(url, { ...values, version }, connect, progress.update).finally(progress.done);
  for (const line of [...describeLlmsRead(result), ...describeDocsPages(result)]) console.log(line);
  console.log(describeDocsIngest(result.baseUri, result));
}

/**
 * `--audience`/`--public`: gives the data source its audiences before a page
 * is written, so a restricted source's pages are never public, not even for
 * the length of the run. Without either option its audiences stay as they are.
 */
async function restrictFirst(values: { remote: boolean; "persist-to": string }, dataSource: string, audiences: string[] | undefined): Promise<void> {
  if (audiences === undefined) return;
  await withEnv({ remote: values.remote, persistTo: values["persist-to"] }, (env) => setSourceAudiences(env.DB, dataSource, audiences));
  console.log(describeAudiences(dataSource, audiences));
}

/** The database an archive or llms.txt run writes to, and (EMBEDDINGS on) what it embeds with: a misconfiguration is refused before the first write. */
function connectWithEmbeddings(values: { remote: boolean; "persist-to": string }): Connect {
  return (work) => withEnv({ remote: values.remote, persistTo: values["persist-to"] }, (env) => work(env.DB, cliSemanticSearch(embeddingsVars(env))));
}

runCli("ingest", USAGE, main);
