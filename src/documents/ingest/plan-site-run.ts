/**
 * A site run, planned once: `npm run ingest -- site`, a `site` source's
 * refresh (the Workflow's and `npm run sources -- refresh`'s) and the
 * evaluation each say here what to crawl, and every piece of the run
 * (site-run.ts) reads the plan's scope, site, public URLs and caps instead
 * of working them out again.
 */
import { AlmanacError } from "../../errors.ts";
import { READER_USER_AGENT } from "../../readers/http.ts";
import { DEFAULT_CRAWL_LIMITS, type CrawlLimits, type CrawlOptions } from "../../readers/site/crawl.ts";
import { publicUrlFor, scopeOf, type CrawlScope } from "../../readers/site/scope.ts";
import type { SiteVersion } from "../versions.ts";
import { siteFor, type Site } from "./prepare-pages.ts";
import type { StageProgress } from "./stage-pages.ts";

/** What a caller asks of a site run: what to crawl and how (`start`'s origin and folder are its scope), and where its pages go. */
export interface SiteRunRequest extends Pick<CrawlOptions, "start" | "fetch" | "include" | "exclude" | "contentSelector" | "limits" | "onProgress"> {
  /** Sent on every request; the readers' own (READER_USER_AGENT) when absent. */
  userAgent?: string;
  /** The public URL the crawled folder is published at (`--base-uri`); the start folder itself when absent. */
  baseUri?: string;
  dataSource?: string;
  /** `--version` / `--current`: the crawled pages are this version of their data source (src/documents/versions.ts). */
  version?: SiteVersion;
  prune: boolean;
  /** With prune: a run that read under half the pages it would replace fails instead (publish-generation.ts, SHRINK_SHARE). */
  refuseShrinking?: boolean;
  /**
   * Read only these page URLs (a push naming what changed): no sitemap, no
   * link followed, nothing pruned; a page among them that answers 404 or 410
   * is removed.
   */
  only?: readonly string[];
  /**
   * An unattended run (a source's refresh) publishes nothing when the site
   * fails more than FAILING_SITE_SHARE (site-run.ts) of the pages asked for;
   * a person running `npm run ingest -- site` reads the failures in the report instead.
   */
  refuseFailingSite?: boolean;
  onWriteProgress?: (progress: StageProgress) => void;
}

/** A site run as planned: the request, with what follows from it worked out once. */
export interface SiteRunPlan extends SiteRunRequest {
  userAgent: string;
  /** The request's caps over the defaults (DEFAULT_CRAWL_LIMITS). */
  limits: CrawlLimits;
  /** The part of the site crawled: `start`'s origin and folder. */
  scope: CrawlScope;
  /** Where the pages go: `baseUri` (else the start folder), its data source and version. */
  site: Site;
  /** A crawled URL as it is published: the start folder mapped onto `baseUri` when one is given. */
  publicUrl: (url: string) => string;
}

/**
 * Plans a site run, requesting nothing. Throws a plain Error when the start
 * URL or the base URI is not an http(s) URL, or the version label is refused.
 *
 * @example planSiteRun({ start: "https://docs.python.org/3/index.html", fetch, prune: false }).site.baseUri // "https://docs.python.org/3"
 */
export function planSiteRun(request: SiteRunRequest): SiteRunPlan {
  const scope = scopeOf(request.start);
  const site = siteFor(request.baseUri ?? `${scope.origin}${scope.prefix}`, request.dataSource, request.version);
  return {
    ...request,
    userAgent: request.userAgent ?? READER_USER_AGENT,
    limits: { ...DEFAULT_CRAWL_LIMITS, ...request.limits },
    scope,
    site,
    publicUrl: publicUrlFor(scope, request.baseUri ? site.baseUri : undefined),
  };
}

/** A site crawl's flags as `npm run ingest -- site` parses them and a `site` source stores them (`npm run sources -- add site`). */
type SiteFlags = Readonly<Record<string, string | boolean | readonly string[] | undefined>>;

/**
 * The part of a request that a site crawl's flags give: --base-uri,
 * --data-source, --include, --exclude, --content-selector, --max-pages and
 * --timeout (seconds). Throws INVALID_ARGUMENT when --max-pages or --timeout
 * is not a positive number.
 *
 * @example siteRunFlags({ "max-pages": "40", timeout: "3" }).limits // { maxPages: 40, timeoutMs: 3000 }
 */
export function siteRunFlags(flags: SiteFlags): Pick<SiteRunRequest, "baseUri" | "dataSource" | "include" | "exclude" | "contentSelector" | "limits"> {
  const text = (flag: string) => (typeof flags[flag] === "string" ? (flags[flag] as string) : undefined);
  const list = (flag: string) => (Array.isArray(flags[flag]) ? [...(flags[flag] as readonly string[])] : []);
  const limits: Partial<CrawlLimits> = {};
  const maxPages = text("max-pages");
  if (maxPages !== undefined) limits.maxPages = positiveNumber("--max-pages", maxPages);
  const timeout = text("timeout");
  if (timeout !== undefined) limits.timeoutMs = positiveNumber("--timeout", timeout) * 1000;
  return {
    baseUri: text("base-uri"),
    dataSource: text("data-source"),
    include: list("include"),
    exclude: list("exclude"),
    contentSelector: text("content-selector"),
    limits,
  };
}

function positiveNumber(flag: string, value: string): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) throw new AlmanacError("INVALID_ARGUMENT", `${flag} must be a positive number, not "${value}"`);
  return number;
}
