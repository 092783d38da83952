// npm run sources -- add|list|remove|refresh|hook: the sources a deployed Almanac refreshes (issue 20), and their webhooks (issue 38).
import { existsSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { deriveHookSecret, hookKeyProblem, newHookSalt, setHookSalt } from "../src/sources/hook-secrets.ts";
import { HOOK_PROVIDERS } from "../src/sources/hooks.ts";
import { ingestSite } from "../src/documents/ingest/site-run.ts";
import { ingestLlms } from "./ingest-llms.ts";
import { ingestArchive } from "./ingest-archive.ts";
import { addSource, listSources, parseInterval, removeSource, SOURCE_KINDS, type Source, type SourceKind, type SourceOptions } from "../src/sources/sources.ts";
import { MIRROR, planSourceSiteRun, siteOfSource, versionOf } from "../src/sources/read-source.ts";
import { VERSION_OPTIONS, versionOption } from "./version-option.ts";
import { AUDIENCE_OPTIONS, audienceOption, describeAudiences } from "./audience-option.ts";
import { restrictedSources, setSourceAudiences, sourceAudiences } from "../src/documents/access/visibility.ts";
import { hostOf } from "../src/sources/status.ts";
import { runSource, type ReadResult } from "../src/sources/run.ts";
import { withEnv } from "./env.ts";
import { DEFAULT_STATE_DIR } from "./local-env.ts";
import { embedSiteRun } from "./ingest-site.ts";
import { type Connect, describeEmbedding } from "./ingest-docs.ts";
import { cliSemanticSearch, embeddingsVars } from "./embeddings-vars.ts";
import type { SemanticSearch } from "../src/embeddings/semantic-search.ts";
import { describeSync } from "./report.ts";
import { runCli, UsageError } from "./run-cli.ts";

const USAGE = `usage:
  npm run sources -- add <site|archive|llms> <URL> --name <name> [--every <30m|1h|1d>] [--version <label> [--current]] [ingest options]
  npm run sources -- list
  npm run sources -- remove <name>
  npm run sources -- refresh <name> [--allow-shrink]
  npm run sources -- hook <name> [--url <the server's public URL>]
  npm run sources -- audience [<data source or source name>] [--audience <a,b>|--public]
each with [--remote] [--persist-to <dir>]

ingest options are those of npm run ingest -- <kind>: --base-uri, --data-source, --include,
--exclude, --max-pages, --content-selector, --timeout (site); --path (archive); --skip-optional
(llms). --every defaults to 1d. A new source is due at once: the deployed Worker's
cron (every 15 minutes) refreshes due sources as Workflows; refresh runs one here and now.
A run mirrors the origin: pages it no longer has are removed, unless the run read under half
of the pages (then it fails; refresh --allow-shrink accepts it once).

hook prints a new webhook secret for the source, once (the old one stops working), and its
URLs for GitHub, GitLab and the generic signed form. The secret is derived from the Worker
secret HOOK_KEY, read from the environment (or, locally, .dev.vars): give it the value of
npx wrangler secret put HOOK_KEY (corpus/docs/keeping-sources-fresh.md).

--audience team-a[,team-b] on add restricts the source's data source to those audiences at once,
before its first page: only API keys carrying one see it (corpus/docs/private-documentation.md).
audience changes who sees a data source (or a kept source's) without re-ingesting: --audience
restricts, --public opens; with neither it prints the audiences, and with no name every
restricted data source.`;

const OPTIONS = {
  name: { type: "string" },
  every: { type: "string", default: "1d" },
  "base-uri": { type: "string" },
  "data-source": { type: "string" },
  include: { type: "string", multiple: true },
  exclude: { type: "string", multiple: true },
  "max-pages": { type: "string" },
  "content-selector": { type: "string" },
  timeout: { type: "string" },
  path: { type: "string" },
  "skip-optional": { type: "boolean" },
  prune: { type: "boolean" },
  "allow-shrink": { type: "boolean" },
  url: { type: "string" },
  ...VERSION_OPTIONS,
  ...AUDIENCE_OPTIONS,
  remote: { type: "boolean", default: false },
  "persist-to": { type: "string", default: DEFAULT_STATE_DIR },
  help: { type: "boolean", short: "h", default: false },
} as const;

/** The ingest options of a source, as given on the command line (the same flags as `npm run ingest`). */
const INGEST_FLAGS = ["base-uri", "data-source", "include", "exclude", "max-pages", "content-selector", "timeout", "path", "skip-optional", "prune", "version"] as const;

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  const [command, ...rest] = positionals;
  if (values.help || !command) return console.log(USAGE);
  const env = { remote: values.remote, persistTo: values["persist-to"] };
  switch (command) {
    case "add": {
      const [kind, url, ...extra] = rest;
      if (!kind || !SOURCE_KINDS.includes(kind as SourceKind)) throw new UsageError(`give the kind first: one of ${SOURCE_KINDS.join(", ")}`);
      if (!url || extra.length > 0) throw new UsageError("give exactly one URL after the kind");
      if (!values.name) throw new UsageError("give the source a --name");
      if (!/^https?:\/\//i.test(url)) throw new Error(`a source is read over http(s): give its URL, not "${url}"`);
      new URL(url);
      const version = versionOption(values);
      const options: SourceOptions = Object.fromEntries(
        INGEST_FLAGS.filter((flag) => values[flag] !== undefined).map((flag) => [flag, values[flag] as string | boolean | string[]]),
      );
      if (version?.current) options.current = true;
      // Refused now, not at the first refresh: a base URI, data source or crawl flag the readers would refuse.
      const candidate = { kind: kind as SourceKind, url, options } as Source;
      if (candidate.kind === "site") planSourceSiteRun(candidate);
      else siteOfSource(candidate);
      const every = parseInterval(values.every);
      const audiences = audienceOption(values);
      const source = await withEnv(env, async (e) => {
        const added = await addSource(e.DB, { name: values.name!, kind: kind as SourceKind, url, options, every }, Date.now());
        // Before its first run reads a page: a restricted source is never public.
        if (audiences !== undefined) await setSourceAudiences(e.DB, hostOf(added), audiences);
        return added;
      });
      if (audiences !== undefined) console.log(describeAudiences(hostOf(source), audiences));
      return console.log(JSON.stringify(describe(source)));
    }
    case "list": {
      for (const source of await withEnv(env, (e) => listSources(e.DB))) console.log(JSON.stringify(describe(source)));
      return;
    }
    case "remove": {
      const [name] = rest;
      if (!name) throw new UsageError("give the name of the source to remove");
      if (!(await withEnv(env, (e) => removeSource(e.DB, name)))) throw new Error(`no source named "${name}"`);
      return console.log(`removed ${name} (its pages stay in the corpus until removed with npm run ingest -- … --prune or by hand)`);
    }
    case "refresh": {
      const [name] = rest;
      if (!name) throw new UsageError("give the name of the source to refresh");
      const runId = `cli-${name}-${Date.now()}`;
      const source = await withEnv(env, (e) => {
        // Refused before the run is claimed when misconfigured (embeddings-vars.ts).
        const embeddings = cliSemanticSearch(embeddingsVars(e));
        return runSource(e.DB, name, runId, (s) => read(s, e.DB, embeddings, values["allow-shrink"] === true));
      });
      return console.log(JSON.stringify(describe(source)));
    }
    case "hook": {
      const [name] = rest;
      if (!name) throw new Error("give the name of the source whose webhook secret to set");
      const key = hookKey(values.remote);
      const salt = newHookSalt();
      if (!(await withEnv(env, (e) => setHookSalt(e.DB, name, salt, Date.now())))) throw new Error(`no source named "${name}"`);
      const base = (values.url ?? `http://localhost:${process.env.PORT ?? "8787"}`).replace(/\/+$/, "");
      const hooks = Object.fromEntries(HOOK_PROVIDERS.map((provider) => [provider, `${base}/sources/${encodeURIComponent(name)}/hooks/${provider}`]));
      console.error(`the secret is shown this once; a new one (hook ${name} again) replaces it and the old one stops working`);
      return console.log(JSON.stringify({ name, secret: await deriveHookSecret(key, name, salt), hooks }));
    }
    case "audience":
      return audienceCommand(rest, values, env);
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

/**
 * `sources -- audience [<name>] [--audience a,b | --public]`: a data source's
 * audiences, set or shown; `<name>` is a data source (host) or the name of
 * a kept source (its data source is meant). No name lists every restricted one.
 */
async function audienceCommand(rest: string[], values: { audience?: string; public?: boolean }, env: { remote: boolean; persistTo: string }): Promise<void> {
  const [name, ...extra] = rest;
  if (extra.length > 0) throw new Error("give one data source (or source name) at most");
  const audiences = audienceOption(values);
  await withEnv(env, async (e) => {
    if (name === undefined) {
      if (audiences !== undefined) throw new Error("say which data source to restrict or open, e.g. npm run sources -- audience docs.internal.example --audience team-a");
      const restricted = await restrictedSources(e.DB);
      if (restricted.size === 0) return console.log("every data source is public");
      for (const [dataSource, names] of restricted) console.log(describeAudiences(dataSource, names));
      return;
    }
    const kept = (await listSources(e.DB)).find((source) => source.name === name);
    const dataSource = kept ? hostOf(kept) : name;
    if (audiences !== undefined) await setSourceAudiences(e.DB, dataSource, audiences);
    console.log(describeAudiences(dataSource, audiences ?? (await sourceAudiences(e.DB, dataSource))));
  });
}

/** Reads and writes a source through the reader of its kind, with its stored ingest options (src/sources/read-source.ts), embedding its pages when hybrid retrieval is on. */
async function read(source: Source, db: D1Database, embeddings: SemanticSearch | undefined, allowShrink: boolean): Promise<ReadResult> {
  const connect: Connect = (work) => work(db, embeddings);
  const options = source.options;
  // A source mirrors its origin (read-source.ts); --allow-shrink lets one run remove more than half of its pages.
  const mirror = { ...MIRROR, refuseShrinking: !allowShrink };
  if (source.kind === "site") {
    // As the Workflow does: a site failing more than 1 page in 10 publishes nothing.
    const result = await embedSiteRun(db, await ingestSite(db, planSourceSiteRun(source, { fetch: globalThis.fetch, ...mirror, refuseFailingSite: true })), embeddings);
    console.error(result.embedding ? `${describeSync(result)}, ${describeEmbedding(result.embedding)}` : describeSync(result));
    return result;
  }
  const version = versionOf(source);
  if (source.kind === "llms") {
    const base = typeof options["base-uri"] === "string" ? options["base-uri"] : undefined;
    const dataSource = typeof options["data-source"] === "string" ? options["data-source"] : undefined;
    return ingestLlms(source.url, { "base-uri": base, "data-source": dataSource, "skip-optional": options["skip-optional"] === true, ...mirror, ...(version ? { version } : {}) }, connect);
  }
  const path = typeof options.path === "string" ? options.path : undefined;
  return ingestArchive(source.url, path, connect, siteOfSource(source), mirror);
}

/**
 * HOOK_KEY, the Worker secret webhook secrets are derived from: the
 * environment's, else (local) the one in .dev.vars, which `npm start` gives
 * the Worker. Refused, saying how to set it, when absent or short.
 */
function hookKey(remote: boolean): string {
  const devVars = !remote && existsSync(".dev.vars") ? readFileSync(".dev.vars", "utf8") : "";
  const key = process.env.HOOK_KEY ?? /^\s*HOOK_KEY\s*=\s*"?([^"\n]*)"?\s*$/m.exec(devVars)?.[1];
  const problem = hookKeyProblem(key);
  if (!problem && key) return key;
  const where = remote
    ? "set it once with npx wrangler secret put HOOK_KEY and give the same value here as the HOOK_KEY environment variable"
    : "add HOOK_KEY=<at least 32 random characters, e.g. from openssl rand -hex 32> to .dev.vars and restart npm start";
  throw new Error(`${problem}: ${where}`);
}

/** One line of `list`: what a deployer checks, times in RFC 3339. */
function describe(source: Source) {
  const time = (ms: number | null | undefined) => (ms == null ? null : new Date(ms).toISOString());
  const run = source.lastRun;
  return {
    name: source.name,
    kind: source.kind,
    url: source.url,
    every: source.every,
    outcome: run?.outcome ?? null,
    startTime: time(run?.startTime),
    endTime: time(run?.endTime),
    added: run?.added ?? 0,
    updated: run?.updated ?? 0,
    unchanged: run?.unchanged ?? 0,
    removed: run?.removed ?? 0,
    skipped: run?.skipped ?? 0,
    error: run?.error ?? null,
    nextDue: time(source.nextDue),
    hookSetTime: time(source.hook?.setTime),
    lastPushTime: time(source.lastPush?.time),
    pagesRead: source.lastRunPages.read,
    pagesWritten: source.lastRunPages.written,
    pushToPublishedMs: source.lastRunPages.pushToPublishedMs,
  };
}

runCli("sources", USAGE, main);
