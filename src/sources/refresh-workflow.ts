/**
 * One refresh of one source, as a Cloudflare Workflow (issue 20): the cron
 * (cron.ts) claims a due source and starts an instance; its steps read the
 * source in pieces, stage the pages as the run's generation, and publish
 * them at once (src/documents/ingest/generations.ts); with hybrid retrieval
 * on, embed steps then give the new and changed chunks their vectors
 * (embedStoredPages, at most 50 pages read and 200 chunks embedded a step:
 * about 210 subrequests, one ledger statement a chunk). Each step is retried
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
import { AbandonedRunError, abandonGeneration, beginGeneration, publishedCounts } from "../documents/ingest/generations.ts";
import { publishGeneration } from "../documents/ingest/publish-generation.ts";
import { beginSiteRun, crawlSitePiece, publishSiteRun, refuseFailingSite, type SiteRunState } from "../documents/ingest/site-run.ts";
import { embedStoredPages, type EmbeddingPiece } from "../documents/ingest/embed-chunks.ts";
import { semanticSearchFor } from "../embeddings/semantic-search.ts";
import { baseUriOfSource, MIRROR, planSourceSiteRun, siteOfSource, stageChangedArchivePages, stageWholeSource } from "./read-source.ts";
import { recordRunPages, startPendingRun, takePushes } from "./pushes.ts";
import { claimSource, finishRun, getSource, type RefreshParams, type RunCounts, type Source } from "./sources.ts";

/** Page requests one crawl step may start: with robots.txt, sitemaps and D1 batches, within 50 subrequests. */
export const PAGE_REQUESTS_PER_STEP = 20;

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
      const source = unwrap(await step.do("begin", STEP, () => settle(() => beginRun(db, name, runId))));
      // The pushes waiting for a run (pushes.ts): a scheduled run takes them too, reading everything they changed.
      const pushes = await step.do("take pushes", RECORD_STEP, () => takePushes(db, name, runId));
      const paths = source.kind === "archive" ? pushes?.changes.paths : undefined;
      let skipped = 0;
      let read = 0;
      let publishedAt: number;
      if (paths) {
        // Only what changed: the pushed paths are re-read from the archive, compared and staged; the rest is not read.
        const changed = unwrap(await step.do("read changed", STEP, () => settle(() => stageChangedArchivePages(db, runId, source, paths))));
        ({ skipped, read } = changed);
        const site = siteOfSource(source);
        publishedAt = unwrap(
          await step.do("publish", STEP, () =>
            settle(() => publishGeneration(db, runId, { baseUri: site.baseUri, site, prune: false, remove: changed.remove }).then(() => Date.now())),
          ),
        );
      } else if (source.kind === "site") {
        // A push naming URLs: those pages alone, conditionally; else the whole conditional re-crawl.
        const urls = pushes?.changes.urls;
        const plan = planSourceSiteRun(source, urls ? { only: urls } : {});
        let state: SiteRunState | undefined;
        for (let piece = 1; !state?.done; piece += 1) {
          const previous = state;
          state = unwrap(
            await step.do(`crawl ${piece}`, STEP, () =>
              settle(async () => withinStepResult((await crawlSitePiece(db, runId, plan, previous, PAGE_REQUESTS_PER_STEP)).state)),
            ),
          );
        }
        const crawled = state;
        refuseFailingSite(crawled);
        skipped = crawled.skipped;
        read = crawled.fetched;
        publishedAt = unwrap(await step.do("publish", STEP, () => settle(() => publishSiteRun(db, runId, plan, crawled).then(() => Date.now()))));
      } else {
        // An archive is one download and an llms.txt one file and its pages: read whole in one step.
        ({ skipped, read } = unwrap(await step.do("read", STEP, () => settle(() => stageWholeSource(db, runId, source)))));
        publishedAt = unwrap(await step.do("publish", STEP, () => settle(() => publishWholeSource(db, runId, source))));
      }
      // Hybrid retrieval on: the published pages' new and changed chunks get their vectors, a piece of pages per step.
      const semantic = semanticSearchFor(this.env);
      if (semantic) {
        const baseUri = baseUriOfSource(source);
        let after: string | null = null;
        for (let piece = 1; ; piece += 1) {
          const from: string | null = after;
          const done: EmbeddingPiece = unwrap(await step.do(`embed ${piece}`, STEP, () => settle(() => embedStoredPages(db, semantic, baseUri, from))));
          after = done.next;
          if (after === null) break;
        }
      }
      return await step.do("record success", RECORD_STEP, async () => {
        const published = await publishedCounts(db, runId);
        const counts = { added: 0, updated: 0, unchanged: 0, removed: 0, ...published, skipped };
        const written = counts.added + counts.updated + counts.removed;
        await recordRunPages(db, name, runId, { read, written, pushToPublishedMs: pushes ? publishedAt - pushes.firstReceived : null });
        await finishRun(db, name, runId, { outcome: "succeeded", counts }, Date.now());
        await this.startNextRun(name);
        return counts;
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await step.do("record failure", RECORD_STEP, async () => {
        await abandonGeneration(db, runId);
        await recordRunPages(db, name, runId, { read: null, written: null, pushToPublishedMs: null });
        // Pushes that came meanwhile are left to the cron (cron.ts): a run failing before it took them would otherwise start itself again at once, for ever.
        await finishRun(db, name, runId, { outcome: "failed", error: message }, Date.now());
        return true;
      });
      // Handled (recorded): the instance ends errored with the same words the source shows.
      throw new Error(message);
    }
  }

  /**
   * The pushes that came while this run went on start the next run now
   * (pushes.ts); one that cannot be started is left to the cron. A retried
   * record step finds the source held by that run and starts no other.
   */
  private async startNextRun(name: string): Promise<void> {
    await startPendingRun(this.env.DB, this.env.SOURCE_REFRESH, name, Date.now()).catch((error: unknown) => {
      console.error(`sources: ${name}: the run for the pushes that came meanwhile could not be started: ${error instanceof Error ? error.message : String(error)}`);
    });
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
  if (!source) throw new Error(`no source named "${name}"; it was removed before its run began`);
  if (source.runId !== runId && !(await claimSource(db, name, runId, Date.now()))) {
    throw new Error(`source "${name}" is being refreshed by run ${source.runId}`);
  }
  if (source.kind === "site") await beginSiteRun(db, runId, planSourceSiteRun(source));
  else await beginGeneration(db, runId, siteOfSource(source).baseUri);
  return { ...source, runId };
}

/** The most JSON a crawl step returns: under the 1 MiB a Workflow persists per step, with room to spare. */
const MAX_STEP_RESULT_BYTES = 900_000;

/**
 * The crawl's state, refused in words when it would outgrow a step's result
 * (a sitemap listing tens of thousands of URLs): the engine's own error
 * would say nothing a deployer can act on.
 */
function withinStepResult(state: SiteRunState): SiteRunState {
  const bytes = new TextEncoder().encode(JSON.stringify(state)).byteLength;
  if (bytes <= MAX_STEP_RESULT_BYTES) return state;
  throw new Error(
    `the crawl's list of URLs (${Math.round(bytes / 1024)} KB) outgrew what a Workflow step may return (1 MiB); ` +
      "nothing was published; narrow the source with --include, --exclude or --max-pages (npm run sources -- remove, then add it again)",
  );
}

/** Publishes an archive or llms.txt run, its version recorded in the same transaction; returns when (epoch ms). */
async function publishWholeSource(db: D1Database, runId: string, source: Source): Promise<number> {
  const site = siteOfSource(source);
  await publishGeneration(db, runId, { baseUri: site.baseUri, site, ...MIRROR });
  return Date.now();
}

/** What a lost connection, an overloaded database or a timeout says: worth a step's retry. */
const TRANSIENT = /fetch failed|network connection lost|other side closed|ECONNRESET|socket hang up|overloaded|timed out|timeout|internal error|try again/i;

/** A step's result: what it made, or why the run cannot go on. */
type Settled<T> = { ok: T } | { failed: string };

/**
 * Runs a step's work so that only a transient failure is retried (thrown to
 * the engine): a run that read no page, a version conflict or an abandoned
 * run fails the same way every time, so it is returned and the run ends at
 * once with its reason. (A NonRetryableError would end the instance before
 * the run could record why.)
 */
async function settle<T>(work: () => Promise<T>): Promise<Settled<T>> {
  try {
    return { ok: await work() };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (TRANSIENT.test(message) && !(error instanceof AbandonedRunError)) throw error;
    return { failed: message };
  }
}

function unwrap<T>(settled: Settled<T>): T {
  if ("failed" in settled) throw new Error(settled.failed);
  return settled.ok;
}
