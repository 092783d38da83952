/**
 * A website into the corpus, as planned (plan-site-run.ts): crawl
 * (crawl.ts), each page's article as Markdown through the pipeline every
 * reader shares (prepareDocument: site markup cleaning, chunking, hashing),
 * staged as one run's generation (generations.ts) with their HTTP validators
 * for the next run's conditional requests, then published at once. The CLI
 * runs it in one piece; a source's Workflow (src/sources/refresh-workflow.ts)
 * in many, one per step.
 * Worker-safe: D1 and a `fetch` are all it needs.
 */
import { prepareDocument, PageError, type PreparedDocument, type Site } from "./prepare-pages.ts";
import { documentNameForUri } from "../names.ts";
import { abandonGeneration, beginGeneration, newRunId } from "./generations.ts";
import type { SiteRunPlan } from "./plan-site-run.ts";
import { publishGeneration } from "./publish-generation.ts";
import { stagePages, type StagedIndexTerm, type StagedValidator } from "./stage-pages.ts";
import { refuseVersionConflicts } from "../versions.ts";
import type { SyncReport } from "../../sync-report.ts";
import { crawlSite, type CrawlResult, type CrawlState } from "../../readers/site/crawl.ts";
import type { CrawledPage, SkippedUrl } from "../../readers/site/fetch-page.ts";
import type { ContentRule, HtmlPage } from "../../readers/site/html.ts";
import { SiteTemplate, type TemplateState } from "../../readers/site/template.ts";
import { inScope, pageKey, publishedUrl } from "../../readers/site/scope.ts";
import { loadValidators, saveTemplate, storedTemplate } from "./site-memory.ts";

/**
 * A site whose failures pass this share of the pages asked for is taken as
 * down: the run fails and the previous pages stay served, rather than a run
 * that kept old text for half the site being reported a success.
 */
const FAILING_SITE_SHARE = 0.1;

/** Throws, naming the first failures, when the run found the site failing (FAILING_SITE_SHARE). */
export function refuseFailingSite(state: SiteRunState): void {
  const asked = state.fetched + state.notModified + state.failed;
  if (state.failed === 0 || state.failed <= FAILING_SITE_SHARE * asked) return;
  const first = state.firstFailed.map((skip) => `${skip.url}: ${skip.reason}`).join("; ");
  throw new Error(
    `the site failed to serve ${state.failed} of the ${asked} pages asked for (${first}); nothing was published and the previous pages are still served; the next run tries again`,
  );
}

/** What a site ingestion did. */
export interface SiteIngestResult extends SyncReport {
  site: Site;
  source: CrawlResult["source"];
  /** Pages read: fetched anew or confirmed unchanged by a 304. */
  fetched: number;
  notModified: number;
  requests: number;
  bytes: number;
  stoppedBy?: string;
  /** Why --prune was not applied, when it was asked for and was not safe. */
  pruneRefused?: string;
  skipped: SkippedUrl[];
  /** Per page, what the reader noticed and did not use (a foreign canonical link). */
  notes: { url: string; note: string }[];
  /** Pages read by each content rule; `body` means the page had no main, [role=main] or article. */
  contentRules: Partial<Record<ContentRule, number>>;
  /** Pages whose top or bottom blocks were the site's repeated navigation, dropped. */
  templateStripped: number;
  /** Pages that were the site's back-of-book index: their terms attached to the pages they point to, not stored as pages. */
  indexPages: number;
}

/**
 * Crawls the site and makes the pages under its base URI match it, as one
 * run: begun, crawled in one piece, published (the Workflow does the same in
 * many pieces). Throws a plain Error, with nothing published, when no page
 * could be read (with the first reasons).
 */
export async function ingestSite(db: D1Database, plan: SiteRunPlan): Promise<SiteIngestResult> {
  const runId = newRunId();
  await beginSiteRun(db, runId, plan);
  try {
    const piece = await crawlSitePiece(db, runId, plan);
    if (plan.refuseFailingSite) refuseFailingSite(piece.state);
    const report = await publishSiteRun(db, runId, plan, piece.state);
    return {
      ...report,
      site: plan.site,
      source: piece.state.source,
      fetched: piece.state.fetched,
      notModified: piece.state.notModified,
      requests: piece.state.requests,
      bytes: piece.state.bytes,
      ...(piece.state.stoppedBy ? { stoppedBy: piece.state.stoppedBy } : {}),
      skipped: piece.skipped,
      notes: piece.notes,
      contentRules: piece.state.contentRules,
      templateStripped: piece.state.templateStripped,
      indexPages: piece.state.indexPages ?? 0,
    };
  } catch (error) {
    await abandonGeneration(db, runId).catch(() => {});
    throw error;
  }
}

/** Where a site run stands between its pieces: plain JSON, small (a Workflow step's result is at most 1 MiB). */
export interface SiteRunState {
  /** The crawl's own state; absent before the first piece. */
  crawl?: CrawlState;
  done: boolean;
  source: CrawlResult["source"];
  fetched: number;
  notModified: number;
  skipped: number;
  /** Of those, the pages the site failed to serve for now (a 5xx, or a request that failed twice): a sign the site is down. */
  failed: number;
  /** The first few skipped URLs with their reasons, for a run that read no page. */
  firstSkipped: SkippedUrl[];
  /** The first few failures, for a run that found the site failing. */
  firstFailed: SkippedUrl[];
  /** Stored pages the site says are gone (404, 410): removed by name when the run reads only some URLs (`only`). */
  gone?: string[];
  requests: number;
  bytes: number;
  stoppedBy?: string;
  /** Pages read by each content rule (html.ts), so the report can say when many kept their whole body. */
  contentRules: Partial<Record<ContentRule, number>>;
  /** Pages whose top or bottom blocks were the site's template (its navigation), dropped. */
  templateStripped: number;
  /** The site's template learnt so far (template.ts). */
  template?: TemplateState;
  /** Back-of-book index pages read (back-index.ts). */
  indexPages?: number;
}

/** What one piece found, beside the state to carry on from. */
interface SitePiece {
  state: SiteRunState;
  skipped: SkippedUrl[];
  notes: { url: string; note: string }[];
}

const FIRST_SKIPPED_KEPT = 5;

/** The skip reasons that are the site's failure, not the page's: a server error, or a request that failed twice (crawl.ts words them). */
const SITE_FAILURE = /^HTTP 5\d\d$|tried twice$/;

/** Starts run `runId` of the site: refused, before anything is written, when its base URI holds another version. */
export async function beginSiteRun(db: D1Database, runId: string, plan: SiteRunPlan): Promise<void> {
  const { site } = plan;
  await refuseVersionConflicts(db, site.baseUri, site.dataSource, site.version?.label ?? "");
  await beginGeneration(db, runId, site.baseUri);
}

/**
 * One piece of the run: crawls on from `previous` (the start when absent),
 * at most `requestBudget` page requests (the whole site when absent), turns
 * the pages read into documents and stages them with their validators. The
 * pages are not seen by readers until publishSiteRun.
 */
export async function crawlSitePiece(db: D1Database, runId: string, plan: SiteRunPlan, previous?: SiteRunState, requestBudget?: number): Promise<SitePiece> {
  const { scope, site, publicUrl } = plan;
  const known = await loadValidators(db, site.baseUri);
  const crawl = await crawlSite({
    start: plan.start,
    fetch: plan.fetch,
    userAgent: plan.userAgent,
    include: plan.include,
    exclude: plan.exclude,
    contentSelector: plan.contentSelector,
    publicUrl,
    limits: plan.limits,
    validators: new Map([...known].map(([url, row]) => [url, row.validator])),
    onProgress: plan.onProgress,
    ...(previous?.crawl ? { resume: previous.crawl } : {}),
    ...(plan.only ? { only: plan.only } : {}),
    ...(requestBudget !== undefined ? { requestBudget } : {}),
  });

  if (crawl.pages.length > 0) plan.onProgress?.(`read ${crawl.pages.length} pages in ${crawl.requests} requests; preparing them`);
  const skipped = [...crawl.skipped];
  const notes: SitePiece["notes"] = [];
  const documents: PreparedDocument[] = [];
  const keep: string[] = [];
  const urlOfName = new Map<string, string>();
  /** The Markdown of each page named so far, to tell a true duplicate from a canonical link that lies. */
  const markdownOfName = new Map<string, string>();
  /** Which page each article text was stored under, to store an article served at two addresses once. */
  const nameOfMarkdown = new Map<string, string>();
  const validators: StagedValidator[] = [];
  // Pages named by their own address first: a canonical link may join a page to the one it names, never take that page's name.
  // Then a folder's index last: when it serves another page's article (git's `/docs/` is `git.html`), the page keeps its own name.
  const ordered = [...crawl.pages].sort((a, b) => Number(namesAnother(a)) - Number(namesAnother(b)) || Number(isFolderIndex(a.url)) - Number(isFolderIndex(b.url)));
  // The site's navigation is what most of its pages repeat: learnt from every page read so far in the run.
  const template = new SiteTemplate(previous?.template);
  const read = crawl.pages.flatMap((crawled) => (crawled.status === "fetched" ? [crawled.page.markdown] : []));
  template.learn(read);
  // A run that read too few pages anew to learn the template (a refresh where three pages changed) strips by the one
  // the base URI's last run learnt, these pages added; the run carries and saves only what it learnt itself.
  const stored = template.learnt || read.length === 0 ? undefined : await storedTemplate(db, site.baseUri);
  const stripper = stored ? new SiteTemplate(stored) : template;
  if (stored) stripper.learn(read);
  const contentRules = { ...previous?.contentRules };
  let templateStripped = previous?.templateStripped ?? 0;
  let indexPages = previous?.indexPages ?? 0;
  const indexTerms: StagedIndexTerm[] = [];
  const nameOf = (url: string) => documentNameForUri(publishedUrl(publicUrl(pageKey(url))));
  for (const [index, crawled] of ordered.entries()) {
    if (plan.onProgress && crawl.pages.length > 100 && (index + 1) % 100 === 0) plan.onProgress(`prepared ${index + 1}/${crawl.pages.length} pages`);
    if (crawled.status === "unchanged") {
      const previous = known.get(crawled.url);
      if (!previous) continue;
      keep.push(previous.name);
      urlOfName.set(previous.name, crawled.url);
      // A 304 that sent the validators already kept writes nothing: an unchanged site costs one manifest row a page.
      const same = (crawled.etag ?? previous.validator.etag) === previous.validator.etag && (crawled.lastModified ?? previous.validator.lastModified) === previous.validator.lastModified;
      if (!same) validators.push({ url: crawled.url, name: previous.name, links: crawled.links, ...validatorsOf(crawled) });
      continue;
    }
    if (crawled.page.indexEntries) {
      // The site's own index: its words go to the pages it points to, and it is no search result of its own.
      const terms = indexTermsOf(crawled.url, crawled.page.indexEntries, (url) => (inScope(scope, pageKey(url)) ? nameOf(url) : undefined));
      indexTerms.push(...terms);
      indexPages += 1;
      notes.push({ url: crawled.url, note: `a back-of-book index: ${terms.length} terms attached to the pages they point to, not stored as a page` });
      continue;
    }
    const { markdown, stripped } = stripper.strip(crawled.page.markdown, publicUrl(crawled.url));
    const page = { ...crawled.page, markdown };
    contentRules[page.contentRule] = (contentRules[page.contentRule] ?? 0) + 1;
    if (stripped) templateStripped += 1;
    let key = crawled.url;
    if (page.canonical) {
      // A canonical elsewhere (another host, file:///, a wrong folder) names nothing this crawl can vouch for.
      const canonical = canonicalKey(page.canonical);
      if (canonical && inScope(scope, canonical)) key = canonical;
      else notes.push({ url: crawled.url, note: `canonical ${page.canonical} ignored: not under ${scope.origin}${scope.prefix}` });
    }
    let uri = publishedUrl(publicUrl(key));
    let name = documentNameForUri(uri);
    let first = urlOfName.get(name);
    if (first && key !== crawled.url && markdownOfName.get(name) !== page.markdown) {
      // The page its canonical link names was read with other text: this one is not a copy of it, and keeps its own address.
      notes.push({ url: crawled.url, note: `canonical ${page.canonical} ignored: ${first} was read on its own, with other text` });
      key = crawled.url;
      uri = publishedUrl(publicUrl(key));
      name = documentNameForUri(uri);
      first = urlOfName.get(name);
    }
    if (first) {
      skipped.push({ url: crawled.url, reason: `the same page as ${first} (${key === crawled.url ? `both are ${uri}` : "its canonical link"})` });
      continue;
    }
    // Two addresses serving the same article (git-scm's `/docs` and `/docs/git.html`) are one page, named by the first read.
    const twin = page.markdown.trim() ? nameOfMarkdown.get(page.markdown) : undefined;
    if (twin) {
      skipped.push({ url: crawled.url, reason: `the same page as ${urlOfName.get(twin) ?? twin} (the same article text)` });
      continue;
    }
    const frontMatter = JSON.stringify({ ...(page.title ? { title: page.title } : {}), ...(page.description ? { description: page.description } : {}) });
    let document: PreparedDocument | null;
    try {
      document = await prepareDocument(new URL(key).pathname.slice(1) || "index", `---\n${frontMatter}\n---\n${page.markdown}\n`, site);
    } catch (error) {
      // A page that cannot be prepared is skipped with its reason; the run's other pages are still written.
      skipped.push({ url: crawled.url, reason: error instanceof PageError ? error.message : `could not be prepared (${error instanceof Error ? error.message : String(error)})` });
      continue;
    }
    if (!document) {
      skipped.push({ url: crawled.url, reason: "no article text (nothing left after navigation, chrome and hidden text)" });
      continue;
    }
    // The page is known by its public URL, not by a file path.
    documents.push({ ...document, uri, name, path: crawled.url });
    urlOfName.set(name, crawled.url);
    markdownOfName.set(name, page.markdown);
    nameOfMarkdown.set(page.markdown, name);
    validators.push({ url: crawled.url, name, links: crawled.links, ...validatorsOf(crawled) });
  }
  // Pages that failed for now say nothing about what the site no longer has: they are kept.
  const gone: string[] = [...(previous?.gone ?? [])];
  for (const skip of crawl.skipped) {
    const name = known.get(skip.url)?.name;
    if (name && !skip.gone) keep.push(name);
    if (name && skip.gone) gone.push(name);
  }
  if (documents.length + keep.length > 0) plan.onProgress?.(`staging ${documents.length} pages (${keep.length} unchanged kept)`);
  await stagePages(db, runId, site.baseUri, documents, { keep, validators, indexTerms, onProgress: plan.onWriteProgress });

  const before = previous ?? { fetched: 0, notModified: 0, skipped: 0, failed: 0, firstSkipped: [], firstFailed: [] };
  const failures = crawl.skipped.filter((skip) => SITE_FAILURE.test(skip.reason));
  const state: SiteRunState = {
    crawl: crawl.state,
    done: crawl.done,
    source: crawl.source,
    fetched: before.fetched + crawl.pages.filter((page) => page.status === "fetched").length,
    notModified: before.notModified + crawl.pages.filter((page) => page.status === "unchanged").length,
    skipped: before.skipped + skipped.length,
    failed: before.failed + failures.length,
    firstFailed: [...before.firstFailed, ...failures].slice(0, FIRST_SKIPPED_KEPT),
    firstSkipped: [...before.firstSkipped, ...skipped].slice(0, FIRST_SKIPPED_KEPT),
    requests: crawl.requests,
    bytes: crawl.bytes,
    ...(plan.only ? { gone } : {}),
    ...((crawl.stoppedBy ?? previous?.stoppedBy) ? { stoppedBy: crawl.stoppedBy ?? previous?.stoppedBy } : {}),
    contentRules,
    templateStripped,
    template: template.toState(),
    indexPages,
  };
  return { state, skipped, notes };
}

/**
 * Publishes a crawled run: every page it staged becomes visible at once,
 * with `prune` the pages it no longer found are removed — unless the crawl
 * was cut short, which says nothing about what the site no longer has.
 * Throws a plain Error, publishing nothing, when the crawl read no page.
 */
export async function publishSiteRun(
  db: D1Database,
  runId: string,
  plan: SiteRunPlan,
  state: SiteRunState,
): Promise<SyncReport & { pruneRefused?: string }> {
  const { site } = plan;
  const alongside = state.template && new SiteTemplate(state.template).learnt ? [saveTemplate(db, site.baseUri, state.template)] : [];
  if (plan.only) {
    // Only the named pages: the rest of the site is neither read nor pruned.
    return publishGeneration(db, runId, { baseUri: site.baseUri, site, prune: false, remove: state.gone ?? [], alongside });
  }
  if (state.fetched + state.notModified === 0) {
    const reasons = state.firstSkipped.map((skip) => `${skip.url}: ${skip.reason}`);
    throw new Error(`fetched no page from ${plan.start}, nothing was written${reasons.length > 0 ? `:\n  ${reasons.join("\n  ")}` : ""}`);
  }
  const pruneRefused = plan.prune && state.stoppedBy ? `the crawl stopped at ${state.stoppedBy}, so pages it did not reach were kept` : undefined;
  const report = await publishGeneration(db, runId, {
    baseUri: site.baseUri,
    site,
    prune: plan.prune && !pruneRefused,
    refuseShrinking: plan.refuseShrinking,
    alongside,
  });
  return { ...report, ...(pruneRefused ? { pruneRefused } : {}) };
}

/** An index page's entries as staged pairs: each target named as its page is, its fragment the anchor; entries pointing out of scope dropped. */
function indexTermsOf(source: string, entries: NonNullable<HtmlPage["indexEntries"]>, nameOf: (url: string) => string | undefined): StagedIndexTerm[] {
  const terms: StagedIndexTerm[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    const target = nameOf(entry.url);
    if (!target || !entry.term) continue;
    const hash = new URL(entry.url).hash.slice(1);
    let anchor = hash;
    try {
      anchor = decodeURIComponent(hash);
    } catch {
      // A malformed escape is kept as written: it then names no chunk, and the term goes to the page's lead.
    }
    const key = `${target}#${anchor}\n${entry.term}`;
    if (seen.has(key)) continue;
    seen.add(key);
    terms.push({ source, target, anchor, term: entry.term });
  }
  return terms;
}

/** `/docs/` or `/docs/index.html`: the page a folder's address serves. */
function isFolderIndex(url: string): boolean {
  return /\/(?:index\.html?)?$/.test(new URL(url).pathname);
}

/** The page key a canonical link names, when it is an http(s) URL. */
function canonicalKey(canonical: string): string | undefined {
  return /^https?:/.test(canonical) ? pageKey(canonical) : undefined;
}

/** True when a fetched page's canonical link names another address than its own. */
function namesAnother(crawled: CrawledPage): boolean {
  if (crawled.status !== "fetched" || !crawled.page.canonical) return false;
  const canonical = canonicalKey(crawled.page.canonical);
  return canonical !== undefined && canonical !== crawled.url;
}

function validatorsOf(page: { etag?: string; lastModified?: string }): { etag?: string; lastModified?: string } {
  return { ...(page.etag ? { etag: page.etag } : {}), ...(page.lastModified ? { lastModified: page.lastModified } : {}) };
}
