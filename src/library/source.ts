import { DEFAULT_LIBRARY_SNAPSHOT } from "../generated/default-library.ts";
import type { LibraryEntry } from "./entry.ts";

/**
 * Where an answer came from. `primary`: the live library (D1 index, KV
 * bodies). `snapshot`: the copy of the default library bundled into the
 * Worker, used when the live store fails; it may lag behind, so `stale`.
 */
export const SOURCE_TIERS = ["primary", "snapshot"] as const;
export type SourceTier = (typeof SOURCE_TIERS)[number];

/** The source fields every query-library result carries. */
export interface LibrarySource {
  source_tier: SourceTier;
  source_url: string;
  stale: boolean;
}

/** StackQL's public library, whose format and ids Almanac's library follows. */
const DEFAULT_LIBRARY_URL = "https://stackql.io/docs/query-library";

/** The configuration the library reads. */
export interface LibraryConfig {
  QUERY_LIBRARY_URL?: string;
  SERVER_MODE?: string;
}

function libraryUrl(config: LibraryConfig): string {
  return (config.QUERY_LIBRARY_URL || DEFAULT_LIBRARY_URL).replace(/\/+$/, "");
}

/** The source fields for a result served from `tier`. */
export function librarySource(config: LibraryConfig, tier: SourceTier): LibrarySource {
  return { source_tier: tier, source_url: `${libraryUrl(config)}/index.json`, stale: tier === "snapshot" };
}

/** An entry's documentation page, as StackQL publishes it: `<library>/queries/<id>`. */
export function docUrlFor(config: LibraryConfig, id: string): string {
  return `${libraryUrl(config)}/queries/${id}`;
}

/** The bundled snapshot of the default library. */
export function snapshotEntries(): readonly LibraryEntry[] {
  return DEFAULT_LIBRARY_SNAPSHOT;
}

/** One entry of the bundled snapshot, if it has that id. */
export function snapshotEntry(id: string): LibraryEntry | undefined {
  return DEFAULT_LIBRARY_SNAPSHOT.find((entry) => entry.id === id);
}
