// Bringing a question set's corpora into a local database, as every eval command does (Node only):
// folders, sites, Debian packages' sites served on 127.0.0.1, archives and llms.txt files, each read by
// the real reader, or an existing local database measured as it is (--state).
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { DEFAULT_CORPUS } from "../src/documents/default-corpus.ts";
import { siteFor } from "../src/documents/ingest/prepare-pages.ts";
import { planSiteRun } from "../src/documents/ingest/plan-site-run.ts";
import { ingestSite } from "../src/documents/ingest/site-run.ts";
import { ingestArchive } from "../cli/ingest-archive.ts";
import { ingestDocsFolder, type Connect } from "../cli/ingest-docs.ts";
import { ingestLlms } from "../cli/ingest-llms.ts";
import { withLocalEnv, withMigratedLocalEnv } from "../cli/local-env.ts";
import type { EvalCorpus } from "./questions.ts";
import type { SemanticSearch } from "../src/embeddings/semantic-search.ts";
import { packageFolder, packageVersion, serveFolder, type ServedSite } from "./debian-site.ts";

/** What the work sees besides the bindings: how to reach a page's live HTML. */
export interface CorporaContext {
  /** The URL that serves the page published at `uri` (a served package's 127.0.0.1 address), or `uri` itself. */
  liveUrl(uri: string): string;
  /** The corpora, in the form the report names them. */
  labels: string[];
}

export interface CorporaOptions {
  /** Embeds every chunk too (eval --embeddings). */
  embeddings?: (env: Env) => SemanticSearch;
  /** Measure this existing local state folder (a copy of it) instead of ingesting anything. */
  state?: string;
  /** Keep crawled corpora in eval/.cache/state, keyed by what decides how they read, and reuse them. */
  cache?: boolean;
}

/** Where crawled corpora are kept between runs (--cache). */
const STATE_CACHE = resolve("eval/.cache/state");

/**
 * Runs `work` on a local database holding `corpora` and, as `npm start`
 * serves them, the default corpus beside them, read with the real readers
 * (embedding every chunk too with `embeddings`). A served package stays up
 * while `work` runs, so its live pages can be read. The scratch database is
 * deleted afterwards, unless it is kept in the cache.
 */
export async function withCorpora<T>(corpora: readonly EvalCorpus[], work: (env: Env, context: CorporaContext) => Promise<T>, options: CorporaOptions = {}): Promise<T> {
  const labels = options.state ? [`the local database ${options.state}`] : corpora.map(labelOf);
  const served = new Map<EvalCorpus, ServedSite>();
  const scratch = await mkdtemp(join(tmpdir(), "almanac-eval-"));
  try {
    for (const corpus of corpora) {
      if ("package" in corpus) served.set(corpus, await serveFolder(await packageFolder(corpus.package, corpus.serve), corpus.start));
    }
    const context: CorporaContext = { liveUrl: liveUrlFor(corpora, served), labels };
    if (options.state) {
      if (!existsSync(join(options.state, "v3", "d1"))) {
        throw new Error(`--state ${options.state} holds no local database; give the folder npm start and npm run ingest use (--persist-to, by default .wrangler/state)`);
      }
      // A copy: the baseline's own index must not be written into the user's database.
      await cp(options.state, scratch, { recursive: true });
      return await withLocalEnv(scratch, (env) => work(env, context));
    }
    const cached = options.cache && !options.embeddings ? join(STATE_CACHE, await cacheKey(corpora)) : undefined;
    if (cached && existsSync(cached)) {
      console.error(`eval: reusing the corpora read before, ${relative(process.cwd(), cached)} (delete it to read them again)`);
      await cp(cached, scratch, { recursive: true });
      return await withLocalEnv(scratch, (env) => work(env, context));
    }
    const result = await withMigratedLocalEnv(scratch, async (env) => {
      const all: EvalCorpus[] = corpora.some((corpus) => "baseUri" in corpus && corpus.baseUri === DEFAULT_CORPUS.baseUri)
        ? [...corpora]
        : [...corpora, { dir: DEFAULT_CORPUS.dir, baseUri: DEFAULT_CORPUS.baseUri }];
      for (const corpus of all) {
        const started = performance.now();
        const pages = await ingestCorpus(env, corpus, served.get(corpus), options.embeddings?.(env));
        console.error(`eval: read ${labelOf(corpus)}: ${pages} pages in ${((performance.now() - started) / 1000).toFixed(1)} s`);
      }
      return work(env, context);
    });
    if (cached) {
      await mkdir(STATE_CACHE, { recursive: true });
      await cp(scratch, cached, { recursive: true });
    }
    return result;
  } finally {
    await Promise.all([...served.values()].map((site) => site.close()));
    await rm(scratch, { recursive: true, force: true });
  }
}

/** How a corpus is named in reports: its base URI and where it was read from. */
export function labelOf(corpus: EvalCorpus): string {
  if ("dir" in corpus) return corpus.baseUri;
  if ("package" in corpus) return `${corpus.baseUri} (Debian ${corpus.package})`;
  if ("site" in corpus) return corpus.baseUri ? `${corpus.baseUri} (crawled from ${corpus.site})` : corpus.site;
  if ("archive" in corpus) return `${corpus.baseUri} (archive ${corpus.archive})`;
  return corpus.baseUri ? `${corpus.baseUri} (llms.txt ${corpus.llms})` : corpus.llms;
}

/** Reads one corpus into the database with the reader `npm run ingest` uses for it; the pages written. */
async function ingestCorpus(env: Env, corpus: EvalCorpus, served: ServedSite | undefined, embeddings: SemanticSearch | undefined): Promise<number> {
  const connect: Connect = (work) => work(env.DB, embeddings);
  if ("dir" in corpus) {
    const result = await ingestDocsFolder(env.DB, corpus.dir, siteFor(corpus.baseUri), { prune: false, ...(embeddings ? { embeddings } : {}) });
    return result.added.length;
  }
  if ("archive" in corpus) return (await ingestArchive(corpus.archive, corpus.path, connect, siteFor(corpus.baseUri), { prune: false })).added.length;
  if ("llms" in corpus) return (await ingestLlms(corpus.llms, { "base-uri": corpus.baseUri, "skip-optional": false, prune: false }, connect)).added.length;
  // A site, live or served from a package: crawled from its root, as a user would give it.
  const start = "package" in corpus ? (served as ServedSite).origin : corpus.site;
  const result = await ingestSite(
    env.DB,
    planSiteRun({
      start,
      baseUri: corpus.baseUri,
      prune: false,
      fetch: globalThis.fetch,
      include: corpus.include ?? [],
      exclude: corpus.exclude ?? [],
      limits: corpus.maxPages ? { maxPages: corpus.maxPages } : {},
    }),
  );
  const reasons = new Map<string, number>();
  for (const skip of result.skipped) reasons.set(skip.reason, (reasons.get(skip.reason) ?? 0) + 1);
  const why = [...reasons].sort(([, a], [, b]) => b - a).slice(0, 3).map(([reason, count]) => `${count} ${reason}`).join("; ");
  console.error(`eval: ${labelOf(corpus)}: ${result.fetched} pages read in ${result.requests} requests; ${result.skipped.length} URLs skipped${why ? ` (${why})` : ""}`);
  return result.added.length;
}

/** Public page URIs back to the served package that holds them; other URIs are live as they are. */
function liveUrlFor(corpora: readonly EvalCorpus[], served: ReadonlyMap<EvalCorpus, ServedSite>): (uri: string) => string {
  const bases = corpora.flatMap((corpus) => {
    const site = served.get(corpus);
    return site && "baseUri" in corpus && corpus.baseUri ? [{ base: corpus.baseUri.replace(/\/+$/, ""), origin: site.origin }] : [];
  });
  return (uri) => {
    const match = bases.find(({ base }) => uri === base || uri.startsWith(`${base}/`));
    return match ? match.origin + uri.slice(match.base.length).replace(/^\//, "") : uri;
  };
}

/**
 * What decides how the corpora read: their definitions, the packages'
 * versions, the default corpus, and every source file that runs while
 * reading (query-time folders such as search and answers are left out, so
 * tuning a ranking reuses the crawl).
 */
async function cacheKey(corpora: readonly EvalCorpus[]): Promise<string> {
  const hash = createHash("sha256");
  hash.update(JSON.stringify(corpora));
  for (const corpus of corpora) if ("package" in corpus) hash.update(`${corpus.package}=${packageVersion(corpus.package)}`);
  for (const file of await filesUnder(["src", "migrations", "cli", DEFAULT_CORPUS.dir])) {
    if (QUERY_TIME.some((folder) => file.startsWith(folder))) continue;
    hash.update(file);
    hash.update(await readFile(file));
  }
  return hash.digest("hex").slice(0, 16);
}

/** Folders whose code runs only when a question is asked, never while pages are read. */
const QUERY_TIME = ["src/documents/search/", "src/documents/answer/", "src/tools/", "src/mcp/", "src/rest/", "src/web/", "src/http/", "src/quota/", "src/auth/"];

async function filesUnder(folders: readonly string[]): Promise<string[]> {
  const files: string[] = [];
  for (const folder of folders) {
    for (const entry of await readdir(folder, { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) files.push(relative(process.cwd(), join(entry.parentPath, entry.name)));
    }
  }
  return files.sort();
}
