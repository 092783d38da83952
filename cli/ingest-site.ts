// npm run ingest -- site <URL> [--base-uri <public URL>] [--include <glob>]… [--exclude <glob>]… [--max-pages <n>] …
import { parseArgs } from "node:util";
import { formatBytes } from "../src/readers/http.ts";
import { DEFAULT_CRAWL_LIMITS } from "../src/readers/site/crawl.ts";
import { ingestSite, type SiteIngestResult } from "../src/documents/ingest/site-run.ts";
import { planSiteRun, siteRunFlags } from "../src/documents/ingest/plan-site-run.ts";
import { AlmanacError } from "../src/errors.ts";
import { AUDIENCE_OPTIONS, audienceOption, describeAudiences } from "./audience-option.ts";
import { setSourceAudiences } from "../src/documents/access/visibility.ts";
import { VERSION_OPTIONS, versionOption } from "./version-option.ts";
import { describeEmbedding, describeWriteProgress, refuseDefaultCorpusBase } from "./ingest-docs.ts";
import { embedAllStoredPages, type EmbeddingReport } from "../src/documents/ingest/embed-chunks.ts";
import type { SemanticSearch } from "../src/embeddings/semantic-search.ts";
import { cliSemanticSearch, embeddingsVars } from "./embeddings-vars.ts";
import { withEnv } from "./env.ts";
import { DEFAULT_STATE_DIR } from "./local-env.ts";
import { progressPrinter } from "./progress.ts";
import { describeSync } from "./report.ts";
import { UsageError } from "./run-cli.ts";

export const SITE_USAGE = `usage:
  npm run ingest -- site <URL> [--base-uri <https://public/prefix>] [--data-source <host>] [--version <label> [--current]] [--audience <a,b>|--public]
      [--include <glob>]… [--exclude <glob>]… [--max-pages <n>] [--content-selector <css>]
      [--timeout <seconds>] [--prune] [--remote] [--persist-to <dir>]

site: crawls the documentation site under <URL> (its origin and folder): the pages its
robots.txt sitemaps list, else <URL>/sitemap.xml, else the pages its links reach. Each page's
article (main, [role=main], article, or --content-selector) is ingested as Markdown, named
documents/ + its URL. --base-uri maps the crawled folder onto the public one (crawl a mirror,
name the public site). robots.txt is honoured; a second run asks conditionally and an unchanged
page costs a 304. Globs match URL paths: * within a segment, ** across, e.g. --exclude '**/genindex*'.
Caps: --max-pages ${DEFAULT_CRAWL_LIMITS.maxPages}, ${formatBytes(DEFAULT_CRAWL_LIMITS.maxPageBytes)} a page, ${formatBytes(DEFAULT_CRAWL_LIMITS.maxRunBytes)} a run, ${DEFAULT_CRAWL_LIMITS.timeoutMs / 1000} s a request, ${DEFAULT_CRAWL_LIMITS.concurrency} requests at a time, Crawl-delay up to ${DEFAULT_CRAWL_LIMITS.maxCrawlDelaySeconds} s.`;

/** Runs `npm run ingest -- site …` with the arguments after "site". */
export async function ingestSiteCommand(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      "base-uri": { type: "string" },
      "data-source": { type: "string" },
      ...VERSION_OPTIONS,
      ...AUDIENCE_OPTIONS,
      include: { type: "string", multiple: true, default: [] },
      exclude: { type: "string", multiple: true, default: [] },
      "max-pages": { type: "string" },
      "content-selector": { type: "string" },
      timeout: { type: "string" },
      remote: { type: "boolean", default: false },
      prune: { type: "boolean", default: false },
      "persist-to": { type: "string", default: DEFAULT_STATE_DIR },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) return console.log(SITE_USAGE);
  const [start, ...extra] = positionals;
  if (!start || extra.length > 0) throw new UsageError("give exactly one URL to crawl, e.g. npm run ingest -- site https://docs.example.com/");
  const version = versionOption(values);
  const audiences = audienceOption(values);
  const progress = progressPrinter("ingest");
  let writeStarted = 0;
  const plan = planSiteRun({
    start,
    ...crawlFlags(values),
    ...(version ? { version } : {}),
    prune: values.prune,
    fetch: globalThis.fetch,
    onProgress: progress.update,
    onWriteProgress: (written) => {
      writeStarted ||= performance.now();
      progress.update(describeWriteProgress(written, performance.now() - writeStarted));
    },
  });
  refuseDefaultCorpusBase(plan.site);

  const started = performance.now();
  const result = await withEnv({ remote: values.remote, persistTo: values["persist-to"] }, async (env) => {
    // Refused before anything is read or written when misconfigured (embeddings-vars.ts).
    const embeddings = cliSemanticSearch(embeddingsVars(env));
    // Before any page is written, so a restricted site is never public (cli/audience-option.ts).
    if (audiences !== undefined) {
      await setSourceAudiences(env.DB, plan.site.dataSource, audiences);
      console.log(describeAudiences(plan.site.dataSource, audiences));
    }
    return embedSiteRun(env.DB, await ingestSite(env.DB, plan), embeddings);
  }).finally(progress.done);
  for (const line of describeSitePages(result)) console.log(line);
  console.log(describeSiteIngest(result, performance.now() - started));
}

/** The crawl's flags (siteRunFlags); a value they refuse (`--max-pages 0`) is a usage error, answered with the usage. */
function crawlFlags(values: Parameters<typeof siteRunFlags>[0]): ReturnType<typeof siteRunFlags> {
  try {
    return siteRunFlags(values);
  } catch (error) {
    throw error instanceof AlmanacError ? new UsageError(error.message) : error;
  }
}

/** Per URL, why it was skipped, and what the reader noticed: the lines before the summary. */
export function describeSitePages(result: SiteIngestResult): string[] {
  // An endless site leaves endless URLs unread: the first few are named, the rest counted.
  const unread = result.skipped.filter((skip) => skip.reason.startsWith("not read:"));
  const named = [...result.skipped.filter((skip) => !skip.reason.startsWith("not read:")), ...unread.slice(0, UNREAD_NAMED)];
  const lines = named.map((skip) => `  ${skip.url}: skipped, ${skip.reason}`);
  if (unread.length > UNREAD_NAMED) lines.push(`  … and ${unread.length - UNREAD_NAMED} more URLs not read: the crawl stopped at ${result.stoppedBy}`);
  return [...lines, ...result.notes.map((note) => `  ${note.url}: ${note.note}`), ...describeContentRules(result)];
}

/** A share of pages read by their whole body past which the report warns: the article may still carry chrome. */
const WHOLE_BODY_WARNING_SHARE = 0.2;

/** Which rule found each share of the pages' articles, and a warning when many had none but the body. */
export function describeContentRules(result: Pick<SiteIngestResult, "contentRules" | "templateStripped" | "indexPages">): string[] {
  const rules = Object.entries(result.contentRules).filter(([, count]) => (count ?? 0) > 0) as [string, number][];
  const pages = rules.reduce((sum, [, count]) => sum + count, 0);
  if (pages === 0) return [];
  const index = result.indexPages > 0 ? `; ${result.indexPages} back-of-book index pages read as words of the pages they point to` : "";
  const lines = [`  article found by: ${rules.map(([rule, count]) => `${rule} ${count}`).join(", ")}; navigation the site repeats dropped from ${result.templateStripped} pages${index}`];
  const body = result.contentRules.body ?? 0;
  if (body / pages >= WHOLE_BODY_WARNING_SHARE) {
    lines.push(
      `  warning: ${body} of ${pages} pages have no main, [role=main] or article element, so their whole body was read (less what most pages repeat); if their text still carries menus, give --content-selector`,
    );
  }
  return lines;
}

/** URLs left unread by a cap that the report names one by one. */
const UNREAD_NAMED = 10;

/**
 * The summary line of a site ingestion.
 *
 * @example describeSiteIngest(result, 61_000) // "https://docs.python.org/3: 530 added, … ; read 530 pages (0 unchanged, 304) from links in 545 requests, 41.2 MB, 61 s; 15 skipped"
 */
export function describeSiteIngest(result: EmbeddedSiteIngest, elapsedMs: number): string {
  const parts = [
    `${describeSync(result)}; read ${result.fetched + result.notModified} pages (${result.notModified} unchanged, 304) from ${result.source === "sitemap" ? "the sitemap" : "links"} in ${result.requests} requests, ${formatBytes(result.bytes)}, ${Math.round(elapsedMs / 1000)} s`,
  ];
  if (result.skipped.length > 0) parts.push(`${result.skipped.length} skipped`);
  if (result.stoppedBy) parts.push(`stopped at ${result.stoppedBy}: the site has more pages than were read`);
  if (result.pruneRefused) parts.push(`not pruned: ${result.pruneRefused}`);
  if (result.embedding) parts.push(describeEmbedding(result.embedding));
  return `${result.site.baseUri}: ${parts.join("; ")}`;
}

/** A site run, and what its embedding did (hybrid retrieval on). */
export type EmbeddedSiteIngest = SiteIngestResult & { embedding?: EmbeddingReport };

/**
 * Hybrid retrieval on: the site's stored pages get vectors for their new and
 * changed chunks. The crawl writes pages as it reads them and keeps none in
 * memory, so the pages are read back from D1 (embedStoredPages).
 */
export async function embedSiteRun(db: D1Database, read: SiteIngestResult, embeddings: SemanticSearch | undefined): Promise<EmbeddedSiteIngest> {
  return embeddings ? { ...read, embedding: await embedAllStoredPages(db, embeddings, read.site.baseUri) } : read;
}
