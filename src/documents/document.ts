/** The shapes of a stored page and of a search hit, which every pipeline and transport shares. */

/** The document fields every result carries (SPEC 2). */
export interface DocumentSummary {
  name: string;
  uri: string;
  title: string;
  description: string;
  dataSource: string;
  updateTime: string;
  /** The version the page belongs to (src/documents/versions.ts); absent for unversioned pages, whose shape is unchanged. */
  version?: string;
}

/** A whole page. */
export interface StoredDocument extends DocumentSummary {
  content: string;
  contentLengthBytes: number;
}

/** One search hit: a chunk and the page it belongs to. */
export interface ChunkHit {
  parent: string;
  id: string;
  content: string;
  document: DocumentSummary;
  /** In [0, 1], as Google's DocumentChunk.relevanceScore: set on search results (final-order.ts relevanceOf). */
  relevanceScore?: number;
}

/** A page's row as D1 returns it (snake_case columns). */
export interface DocumentRow {
  name: string;
  uri: string;
  title: string;
  description: string;
  data_source: string;
  update_time: string;
  content: string;
  content_length_bytes: number;
  /** '' when unversioned; absent from statements that do not read it. */
  version?: string;
}

/** A page row's summary fields. */
export function toSummary(row: Omit<DocumentRow, "content" | "content_length_bytes">): DocumentSummary {
  return {
    name: row.name,
    uri: row.uri,
    title: row.title,
    description: row.description,
    dataSource: row.data_source,
    updateTime: row.update_time,
    ...(row.version ? { version: row.version } : {}),
  };
}

