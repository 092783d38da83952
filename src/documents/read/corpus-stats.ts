import type { D1Reader } from "../../d1/sessions.ts";
import { listVersions } from "../versions.ts";
import { hiddenParam, isVisible, noteTouched, publicViewer, visibilityFor, visibleSql, type Viewer } from "../access/visibility.ts";

/** What the corpus holds from one data source (one site). */
export interface DataSourceStats {
  dataSource: string;
  pages: number;
  /** Chunks: the sections search returns. */
  sections: number;
  /** The newest updateTime among its pages (RFC 3339). */
  lastUpdate: string;
  /** Its versions, oldest first, when it has any (src/documents/versions.ts). */
  versions?: { label: string; current: boolean; pages: number }[];
}

interface DataSourceRow {
  data_source: string;
  pages: number;
  sections: number;
  last_update: string;
}

/**
 * Pages, sections and the last update per data source `viewer` sees (absent: the public ones), largest source
 * first. One pass over the chunks' (document_name, chunk_id) index, so it
 * costs a count of the chunks, never a read of their text.
 *
 * @example await corpusStats(env.DB) // [{ dataSource: "almanac.dev", pages: 24, sections: 310, lastUpdate: "2026-…" }]
 */
export async function corpusStats(db: D1Reader, viewer: Viewer = publicViewer()): Promise<DataSourceStats[]> {
  const visibility = await visibilityFor(db, viewer);
  const { results } = await db
    .prepare(
      `SELECT d.data_source AS data_source, count(*) AS pages, coalesce(sum(s.n), 0) AS sections, max(d.update_time) AS last_update
       FROM documents d
       LEFT JOIN (SELECT document_name, count(*) AS n FROM chunks GROUP BY document_name) s ON s.document_name = d.name
       WHERE 1 ${visibleSql("d", visibility, "?1")}
       GROUP BY d.data_source
       ORDER BY pages DESC, d.data_source`,
    )
    .bind(...(visibility.hidden.length > 0 ? [hiddenParam(visibility)] : []))
    .all<DataSourceRow>();
  noteTouched(viewer, visibility, results.map((row) => ({ dataSource: row.data_source })));
  const versions = (await listVersions(db)).filter((version) => isVisible(visibility, version.dataSource));
  return results.map((row) => {
    const own = versions.filter((version) => version.dataSource === row.data_source).map(({ label, isCurrent, pages }) => ({ label, current: isCurrent, pages }));
    const stats = { dataSource: row.data_source, pages: row.pages, sections: row.sections, lastUpdate: row.last_update };
    return own.length > 0 ? { ...stats, versions: own } : stats;
  });
}
