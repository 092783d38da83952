/**
 * How many chunks a stem occurs in, without reading its doclist. FTS5 keeps
 * no such count: its vocabulary table (`chunks_vocab`) walks every posting of
 * the term, which for a word in half of 100,000 chunks costs milliseconds, and
 * search asks for the counts of every word of a query. So ingestion copies
 * the counts of the common terms into `common_terms` (migration 0005) when it
 * has written, and search reads them from there, falling back to
 * `chunks_vocab` for the rest: rare terms are cheap to count, and a term
 * ingested since the last copy is counted afresh.
 */

/** Terms in at least this many chunks are copied; counting a rarer one reads at most this many postings. */
export const COMMON_TERM_MIN_CHUNKS = 100;

/**
 * An SQL expression for the number of chunks the stem `stemSql` (an SQL
 * expression) occurs in: the copied count, else the index's own, else 0.
 * coalesce evaluates its arguments in order and stops at the first value, so
 * a common term never reaches chunks_vocab.
 *
 * @example chunkCountSql("s.column1") // "coalesce((SELECT doc FROM common_terms …), (SELECT doc FROM chunks_vocab …), 0)"
 */
export function chunkCountSql(stemSql: string): string {
  return `coalesce((SELECT doc FROM common_terms WHERE term = ${stemSql}), (SELECT doc FROM chunks_vocab WHERE term = ${stemSql}), 0)`;
}

/**
 * Where the vocabulary is cut for copying: one statement per range of terms
 * (fts5vocab reads only the range asked), so that no statement reads the
 * whole vocabulary. Reading it all takes half a second at 100,000 chunks
 * locally; at the millions of chunks one database holds it would near D1's
 * 30 s limit per query (D1_LIMITS.queryMilliseconds). Porter stems are lower
 * case, so the letters split them; digits and other scripts fall in the
 * first and last ranges.
 */
const RANGE_STARTS = ["", ..."abcdefghijklmnopqrstuvwxyz"];

/**
 * Replaces the copy with the index's current counts, in one batch (so a
 * search sees the old copy or the new one, never neither): 28 statements,
 * within D1's 50 per batch.
 */
export async function refreshCommonTerms(db: D1Database): Promise<void> {
  const copies = RANGE_STARTS.map((from, i) => {
    const to = RANGE_STARTS[i + 1];
    const range = to === undefined ? "term >= ?2" : "term >= ?2 AND term < ?3";
    return db
      .prepare(`INSERT INTO common_terms (term, doc) SELECT term, doc FROM chunks_vocab WHERE ${range} AND doc >= ?1`)
      .bind(COMMON_TERM_MIN_CHUNKS, from, ...(to === undefined ? [] : [to]));
  });
  await db.batch([db.prepare("DELETE FROM common_terms"), ...copies]);
}

/**
 * Whether the copy is empty while the index has a term to copy: so before
 * the first ingestion after migration 0005, but not for a corpus too small
 * to have common terms (whose unchanged runs must write nothing).
 */
export async function commonTermsMissing(db: D1Database): Promise<boolean> {
  const row = await db
    .prepare("SELECT NOT EXISTS (SELECT 1 FROM common_terms) AND EXISTS (SELECT 1 FROM chunks_vocab WHERE doc >= ?1) AS missing")
    .bind(COMMON_TERM_MIN_CHUNKS)
    .first<{ missing: number }>();
  return row?.missing === 1;
}
