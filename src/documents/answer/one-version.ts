import type { ChunkHit } from "../document.ts";

/**
 * The hits an answer may draw from so that it never mixes versions: per
 * data source, only the version of its best-ranked versioned hit stays
 * (unversioned pages belong to no version and always stay). By default
 * search sees one version per data source anyway; this matters when a
 * filter admits several (`version = "*"`, `version != "v1"`).
 */
export function oneVersionPerSource<T extends ChunkHit>(ranked: readonly T[]): T[] {
  const chosen = new Map<string, string>();
  return ranked.filter((hit) => {
    const { version, dataSource } = hit.document;
    if (!version) return true;
    const first = chosen.get(dataSource);
    if (first === undefined) chosen.set(dataSource, version);
    return first === undefined || first === version;
  });
}
