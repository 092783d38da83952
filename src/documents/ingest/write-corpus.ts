/**
 * Writing an ingestion run into D1: the pages of one base URI made to match
 * a folder, staged as one generation and published in one transaction
 * (generations.ts), so the same code loads 20 pages locally or 100,000
 * chunks into a deployed database and readers never see half of a run.
 */
import type { PreparedDocument, Site } from "./prepare-pages.ts";
import type { SyncReport } from "../../sync-report.ts";
import { findVersion, forgetVersionStatements, refuseVersionConflicts, type VersionInfo } from "../versions.ts";
import { commonTermsMissing, refreshCommonTerms } from "../search/common-terms.ts";
import type { SemanticSearch } from "../../embeddings/semantic-search.ts";
import { embedChunks, type EmbeddingReport } from "./embed-chunks.ts";
import { abandonGeneration, beginGeneration, newRunId, withRetries } from "./generations.ts";
import { publishGeneration } from "./publish-generation.ts";
import { stagePages, unchangedRun, type StageProgress, type StagedValidator } from "./stage-pages.ts";

/** How far the writing has got, after each batch. */
export type WriteProgress = StageProgress;

/**
 * Makes the pages ingested under the site's base URI match `documents`
 * (a bare base URI: an unversioned site): new pages are
 * added, changed pages replaced (new updateTime), unchanged pages left alone
 * (updateTime kept) and, with `prune`, pages this base URI ingested before
 * but no longer has are removed. Pages of other base URIs are never touched;
 * a page another base URI owns is refused before anything is written.
 *
 * The run is all or nothing, whatever its size: its pages are staged in
 * batches within D1's limits and published in one transaction, so a run
 * that fails or is killed part way leaves every reader on the previous
 * pages (generations.ts), and running it again writes it whole.
 *
 * A versioned site's version is recorded (and made current with
 * `version.current`) in the same transaction as its pages, and a base URI
 * that holds another version is refused before anything is written
 * (src/documents/versions.ts).
 */
export async function syncDocuments(
  db: D1Database,
  target: string | Site,
  documents: readonly PreparedDocument[],
  options: SyncOptions,
): Promise<SyncReport & { embedding?: EmbeddingReport }> {
  const site = typeof target === "string" ? undefined : target;
  const baseUri = typeof target === "string" ? target : target.baseUri;
  const label = site?.version?.label ?? "";
  const stray = documents.find((doc) => (doc.version ?? "") !== label);
  // Readers pass the Site whose version prepared the pages; a bare base URI would silently drop the version's --current.
  if (stray) throw new Error(`${stray.name} was prepared as version "${stray.version}" but is written as "${label}"; pass the Site the pages were prepared with to syncDocuments`);
  await withRetries(() => refuseVersionConflicts(db, baseUri, site?.dataSource ?? documents[0]?.dataSource ?? "", label));
  const now = options.now ?? new Date();
  const report = await writeGeneration(db, baseUri, documents, { ...options, now, site });
  if (!options.embeddings) return report;
  return { ...report, embedding: await embedChunks(db, options.embeddings, baseUri, documents, options.onEmbedProgress) };
}

/** How syncDocuments writes. */
interface SyncOptions {
  prune: boolean;
  /** With prune: a run under half the pages it would replace fails instead (publish-generation.ts, SHRINK_SHARE). */
  refuseShrinking?: boolean;
  now?: Date;
  onProgress?: (progress: WriteProgress) => void;
  /** Pages the source still has but did not send again (a crawl's 304s): reported unchanged, never pruned. */
  keep?: readonly string[];
  /** A site crawl's HTTP validators, published with its pages. */
  validators?: readonly StagedValidator[];
  /** The run's id (a Workflow instance's); a fresh one when absent. */
  runId?: string;
  /** Hybrid retrieval on: the written chunks are embedded too (embed-chunks.ts), and the report says how many. */
  embeddings?: SemanticSearch;
  onEmbedProgress?: (embedded: number, total: number) => void;
}

/**
 * Removes one version: it is forgotten and exactly its pages are deleted in
 * one transaction (from then on its data source's current version is worked
 * out again). Throws a plain Error naming the versions that exist when there
 * is no such one.
 */
export async function removeVersion(db: D1Database, label: string, dataSource?: string): Promise<{ version: VersionInfo; report: SyncReport }> {
  const version = await withRetries(() => findVersion(db, label, dataSource));
  const report = await writeGeneration(db, version.baseUri, [], {
    prune: true,
    pruneVersion: version.label,
    alongside: forgetVersionStatements(db, version),
  });
  return { version, report };
}

/** One whole run in one call: begin, stage, publish; on any failure nothing is published and the staged rows go. */
async function writeGeneration(
  db: D1Database,
  baseUri: string,
  documents: readonly PreparedDocument[],
  options: Pick<SyncOptions, "prune" | "refuseShrinking" | "now" | "onProgress" | "keep" | "validators" | "runId"> & {
    pruneVersion?: string;
    site?: Site;
    alongside?: D1PreparedStatement[];
  },
): Promise<SyncReport> {
  // Nothing to publish beyond the pages (no validators, no version to record): an unchanged run writes nothing.
  if (!options.validators?.length && !options.alongside?.length && !options.site?.version) {
    const unchanged = await unchangedRun(db, baseUri, documents, options);
    if (unchanged) {
      // The first run after migration 0005 fills the copy of common terms' counts even when no page changed.
      if (await withRetries(() => commonTermsMissing(db))) await withRetries(() => refreshCommonTerms(db));
      return unchanged;
    }
  }
  const id = options.runId ?? newRunId();
  await withRetries(() => beginGeneration(db, id, baseUri, options.now));
  try {
    await stagePages(db, id, baseUri, documents, { keep: options.keep, validators: options.validators, onProgress: options.onProgress });
    return await publishGeneration(db, id, {
      baseUri,
      prune: options.prune,
      refuseShrinking: options.refuseShrinking,
      pruneVersion: options.pruneVersion,
      site: options.site,
      alongside: options.alongside,
      now: options.now,
    });
  } catch (error) {
    await abandonGeneration(db, id).catch(() => {});
    throw error;
  }
}
