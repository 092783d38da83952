/**
 * One refresh of one source, as a Cloudflare Workflow (issue 20): the cron
 * (cron.ts) claims a due source and starts an instance; its steps read the
 * source in pieces, stage the pages as the run's generation, and publish
 * them at once (src/documents/ingest/generations.ts). Each step is retried
 * with backoff and its result is persisted, so a run that loses its Worker
 * (a deploy, an eviction) carries on from its last finished step.
 *
 * The limits the steps are sized for (developers.cloudflare.com/workflows/reference/limits,
 * /workers/platform/limits, /d1/platform/limits):
 * - subrequests: 50 per invocation on Workers Free (fetches and D1 queries
 *   alike). A crawl step starts at most PAGE_REQUESTS_PER_STEP page requests
 *   (the first also reads robots.txt and a few sitemaps) and writes in D1
 *   batches of at most 50 statements, a handful per step;
 * - a step's result: at most 1 MiB of JSON. A step returns the crawl's state
 *   (the queue and the URLs seen: about 350 KB for a 2,000-page site) and
 *   counts, never pages: pages go to D1 as they are read;
 * - CPU: 30 s per step by default on Workers Paid. Turning 20 pages of HTML
 *   into Markdown takes well under that (measured locally; the closing note
 *   of issue 20 has the figures). Workers Free allows 10 ms per step, which
 *   no HTML reader fits: refresh needs Workers Paid;
 * - steps: 1,024 per instance (Free) / 10,000 (Paid). A 2,000-page site
 *   (the crawl's default --max-pages) takes about 100 crawl steps;
 * - D1: 100 bound parameters and 100 KB per statement, 30 s per query. The
 *   staging batches are planned within them (src/d1/limits.ts) and the
 *   publishing transaction copies at most 5,000 chunks per statement.
 */
import { WorkflowEntrypoint, type WorkflowEvent, type WorkflowStep, type WorkflowStepConfig } from "cloudflare:workers";
import { NonRetryableError } from "cloudflare:workflows";
import { AbandonedRunError, abandonGeneration, beginGeneration, publishGeneration, publishedCounts } from "../documents/ingest/generations.ts";
import { beginSiteRun, crawlSitePiece, publishSiteRun, type SiteRunState } from "../documents/ingest/readers/site/ingest.ts";
import { recordVersionStatements } from "../documents/versions.ts";
import { prunes, siteIngestOptions, siteOfSource, stageWholeSource, versionOf } from "./read-source.ts";
import { claimSource, finishRun, getSource, type RunCounts, type Source } from "./sources.ts";

/** What the cron passes an instance. */
export interface RefreshParams {
  source: string;
}

/** Page requests one crawl step may start: with robots.txt, sitemaps and D1 batches, within 50 subrequests. */
export const PAGE_REQUESTS_PER_STEP = 20;

/**
 * A site whose failures pass this share of the pages asked for is taken as
 * down: the run fails and the previous pages stay served, rather than a run
 * that kept old text for half the site being reported a success.
 */
export const FAILING_SITE_SHARE = 0.1;

/** Every step: retried three times, 10 s, 20 s, 40 s apart; a step stuck for 10 minutes is retried too. */
const STEP: WorkflowStepConfig = { retries: { limit: 3, delay: "10 seconds", backoff: "exponential" }, timeout: "10 minutes" };

/** Recording the outcome must outlast a short D1 outage. */
const RECORD_STEP: WorkflowStepConfig = { retries: { limit: 5, delay: "5 seconds", backoff: "exponential" }, timeout: "1 minute" };

export class SourceRefresh extends WorkflowEntrypoint<Env, RefreshParams> {
  override async run(event: Readonly<WorkflowEvent<RefreshParams>>, step: WorkflowStep): Promise<RunCounts> {
    const runId = event.instanceId;
    const name = event.payload.source;
    const db = this.env.DB;
    try {
      const source = await step.do("begin", STEP, () => beginRun(db, name, runId));
      let skipped = 0;
      if (source.kind === "site") {
        const options = siteIngestOptions(source);
        let state: SiteRunState | undefined;
        for (let piece = 1; !state?.done; piece += 1) {
          const previous = state;
          state = await step.do(`crawl ${piece}`, STEP, async () => (await crawlSitePiece(db, runId, options, previous, PAGE_REQUESTS_PER_STEP)).state);
        }
        const crawled = state;
        refuseFailingSite(crawled);
        skipped = crawled.skipped;
        await step.do("publish", STEP, async () => {
          await publishSiteRun(db, runId, options, crawled);
          return true;
        });
      } else {
        skipped = (await step.do("read", STEP, () => stageWholeSource(db, runId, source))).skipped;
        await step.do("publish", STEP, async () => {
          const site = siteOfSource(source);
          const version = versionOf(source);
          await publishGeneration(db, runId, {
            baseUri: site.baseUri,
            prune: prunes(source),
            alongside: version ? recordVersionStatements(db, site.baseUri, site.dataSource, version, new Date().toISOString()) : [],
          });
          return true;
        });
      }
      return await step.do("record success", RECORD_STEP, async () => {
        const published = await publishedCounts(db, runId);
        const counts = { added: 0, updated: 0, unchanged: 0, removed: 0, ...published, skipped };
        await finishRun(db, name, runId, { outcome: "succeeded", counts }, Date.now());
        return counts;
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await step.do("record failure", RECORD_STEP, async () => {
        await abandonGeneration(db, runId);
        await finishRun(db, name, runId, { outcome: "failed", error: message }, Date.now());
        return true;
      });
      // Handled (recorded): the instance ends errored with the same words the source shows.
      throw new Error(message);
    }
  }
}

/**
 * The run's first step: the source must be claimed by this run (the cron
 * claims it before starting the instance; a run started by hand claims it
 * here) and its generation begun. A source gone or held by another run is
 * not retried.
 */
async function beginRun(db: D1Database, name: string, runId: string): Promise<Source> {
  const source = await getSource(db, name);
  if (!source) throw new NonRetryableError(`no source named "${name}"; it was removed before its run began`);
  if (source.runId !== runId && !(await claimSource(db, name, runId, Date.now()))) {
    throw new NonRetryableError(`source "${name}" is being refreshed by run ${source.runId}`);
  }
  try {
    if (source.kind === "site") await beginSiteRun(db, runId, siteIngestOptions(source));
    else await beginGeneration(db, runId, siteOfSource(source).baseUri);
  } catch (error) {
    // A version conflict or a bad base URI will not heal by retrying.
    if (error instanceof AbandonedRunError || !(error instanceof Error) || /fetch failed|Network connection lost/i.test(error.message)) throw error;
    throw new NonRetryableError(error.message);
  }
  return { ...source, runId };
}

/** Fails a run that found the site failing (FAILING_SITE_SHARE), naming the first failures. */
function refuseFailingSite(state: SiteRunState): void {
  const asked = state.fetched + state.notModified + state.failed;
  if (state.failed === 0 || state.failed <= FAILING_SITE_SHARE * asked) return;
  const first = state.firstFailed.map((skip) => `${skip.url}: ${skip.reason}`).join("; ");
  throw new Error(
    `the site failed to serve ${state.failed} of the ${asked} pages asked for (${first}); nothing was published and the previous pages are still served; the next run tries again`,
  );
}
