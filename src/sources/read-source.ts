// A source's stored options (the flags of `npm run ingest -- <kind>`) turned
// into a reader's options, and the one-piece readers (archive, llms.txt):
// shared by the refresh Workflow and `npm run sources -- refresh`.
import { prepareSite, siteFor, type Site } from "../documents/ingest/prepare-pages.ts";
import { stagePages } from "../documents/ingest/stage-pages.ts";
import { downloadArchive, readArchivePages } from "../readers/archive/archive.ts";
import { documentNameForUri, PAGE_EXTENSION, pageUri } from "../documents/names.ts";
import { readLlmsPages } from "../readers/llms-txt.ts";
import { planSiteRun, siteRunFlags, type SiteRunPlan, type SiteRunRequest } from "../documents/ingest/plan-site-run.ts";
import type { SiteVersion } from "../documents/versions.ts";
import type { Source } from "./sources.ts";

/** The platform's fetch, called as the Workers runtime requires (a detached `fetch` throws "Illegal invocation"). */
const platformFetch: typeof fetch = (input, init) => fetch(input, init);

type StoredOptions = Record<string, string | string[] | boolean | undefined>;

const text = (options: StoredOptions, key: string) => (typeof options[key] === "string" ? (options[key] as string) : undefined);

/** The version a source's pages are ingested as (`--version`, `--current`), if any. */
export function versionOf(source: Source): SiteVersion | undefined {
  const options = source.options as StoredOptions;
  const label = text(options, "version");
  return label ? { label, current: options.current === true } : undefined;
}

/**
 * A registered source mirrors its origin (issue 38): every run removes the
 * pages the origin no longer has, in the same publication as the rest of the
 * run, and a run that reads under half the pages it would replace fails
 * instead (SHRINK_SHARE in publish-generation.ts). A stored `--prune` is no longer
 * needed; `npm run ingest` keeps it as its own choice.
 */
export const MIRROR = { prune: true, refuseShrinking: true } as const;

/**
 * The site run a `site` source stands for, planned from its stored flags
 * (plan-site-run.ts) as a mirror; `run` adds what this run asks beyond them
 * (a push's URLs, another fetch). Throws as planSiteRun and siteRunFlags do.
 */
export function planSourceSiteRun(source: Source, run: Partial<SiteRunRequest> = {}): SiteRunPlan {
  const version = versionOf(source);
  return planSiteRun({ start: source.url, ...siteRunFlags(source.options), ...(version ? { version } : {}), ...MIRROR, fetch: platformFetch, ...run });
}

/** The site an archive or llms.txt source writes: --base-uri, else the URL's origin (llms) or the URL (archive). */
export function siteOfSource(source: Source): Site {
  const options = source.options as StoredOptions;
  const fallback = source.kind === "llms" ? new URL(source.url).origin : source.url;
  return siteFor(text(options, "base-uri") ?? fallback, text(options, "data-source"), versionOf(source));
}

/** The base URI a source's pages are stored under, whatever its kind. */
export function baseUriOfSource(source: Source): string {
  return source.kind === "site" ? planSourceSiteRun(source).site.baseUri : siteOfSource(source).baseUri;
}

/**
 * Reads an archive or llms.txt source whole and stages its pages as run
 * `runId` (one Workflow step: one download, or the llms.txt and its pages).
 * Throws a plain Error, staging nothing, when it holds no page.
 */
export async function stageWholeSource(db: D1Database, runId: string, source: Source, fetcher: typeof fetch = platformFetch): Promise<{ skipped: number; read: number }> {
  const options = source.options as StoredOptions;
  const site = siteOfSource(source);
  const read =
    source.kind === "llms"
      ? await readLlmsPages(source.url, { skipOptional: options["skip-optional"] === true, fetch: fetcher })
      : await readArchivePages(await downloadArchive(source.url, { fetch: fetcher }), { path: text(options, "path") });
  if (read.pages.length === 0) throw new Error(`${source.url} gave no page; nothing was written and the previous pages are still served`);
  const { documents, skipped } = await prepareSite(read.pages, site);
  if (documents.length === 0) throw new Error(`${source.url}: all ${read.pages.length} pages are empty after their front matter and site markup; nothing was written`);
  await stagePages(db, runId, site.baseUri, documents);
  const readSkipped = "skipped" in read && Array.isArray(read.skipped) ? read.skipped.length : 0;
  return { skipped: skipped.length + readSkipped, read: read.pages.length };
}

/**
 * Reads only the pages of an archive source that a push changed (`paths`,
 * the repository's own paths) and stages them as run `runId`: a page still
 * in the archive is compared and staged when new or changed, one no longer
 * there (or empty now) is returned in `remove`, to be removed by name when
 * the run publishes. Paths outside the source's `--path` folder, or not
 * pages, cost nothing. Every other entry of the archive is passed over unread.
 */
export async function stageChangedArchivePages(
  db: D1Database,
  runId: string,
  source: Source,
  paths: readonly string[],
  fetcher: typeof fetch = platformFetch,
): Promise<{ read: number; remove: string[]; skipped: number }> {
  const folder = text(source.options as StoredOptions, "path")?.replace(/^\.?\/+|\/+$/g, "");
  const wanted = new Set(
    paths.flatMap((path) => {
      const relative = !folder ? path : path.startsWith(`${folder}/`) ? path.slice(folder.length + 1) : "";
      return relative !== "" && PAGE_EXTENSION.test(relative) ? [relative] : [];
    }),
  );
  if (wanted.size === 0) return { read: 0, remove: [], skipped: 0 };
  const site = siteOfSource(source);
  const read = await readArchivePages(await downloadArchive(source.url, { fetch: fetcher }), { path: folder, only: wanted });
  const { documents, skipped } = await prepareSite(read.pages, site);
  const kept = new Set(documents.map((doc) => doc.path));
  const remove = [...wanted].filter((path) => !kept.has(path)).map((path) => documentNameForUri(pageUri(site.baseUri, path)));
  await stagePages(db, runId, site.baseUri, documents);
  return { read: read.pages.length, remove, skipped: skipped.length + read.skipped.length };
}
