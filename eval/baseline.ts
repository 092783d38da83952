// The plain baseline every change is judged against: SQLite FTS5 BM25 over the same chunks.
/**
 * The baseline's own index, built in the scratch database from the chunks the
 * real ingestion wrote: porter stemming, title and chunk text only, as a
 * plain BM25 set-up would index heading-level chunks.
 */
export async function buildBaselineIndex(db: D1Database): Promise<void> {
  await db.batch([
    db.prepare("DROP TABLE IF EXISTS eval_baseline_fts"),
    db.prepare("CREATE VIRTUAL TABLE eval_baseline_fts USING fts5 (document_name UNINDEXED, title, content, tokenize = 'porter unicode61')"),
    db.prepare("INSERT INTO eval_baseline_fts (document_name, title, content) SELECT document_name, title, content FROM chunks"),
  ]);
}

/**
 * The baseline's top chunks for a question: every distinct word OR-ed (no
 * stopword list, no identifiers: BM25's IDF alone discounts common words),
 * title weight 2.
 */
export async function baselineSearch(db: D1Database, query: string, limit: number): Promise<{ parent: string; content: string }[]> {
  const words = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
  if (words.length === 0) return [];
  const match = words.map((word) => `"${word}"`).join(" OR ");
  const { results } = await db
    .prepare("SELECT document_name AS parent, content FROM eval_baseline_fts WHERE eval_baseline_fts MATCH ?1 ORDER BY bm25(eval_baseline_fts, 0.0, 2.0, 1.0) LIMIT ?2")
    .bind(match, limit)
    .all<{ parent: string; content: string }>();
  return results;
}
