/**
 * D1's documented limits (developers.cloudflare.com/d1/platform/limits), the
 * one place every statement and batch size in Almanac is derived from. A
 * deployed database enforces them; the local one (Miniflare) does not, so
 * code that only ever ran locally would pass tests and fail on deploy.
 */
export const D1_LIMITS = {
  /** "Maximum bound parameters per query". */
  boundParameters: 100,
  /** "Maximum SQL statement length", in bytes. */
  statementBytes: 100_000,
  /** "Maximum string, BLOB or table row size", in bytes. */
  rowBytes: 2_000_000,
  /**
   * "Queries per Worker invocation" on the Free plan (Workers Paid: 1,000).
   * Every statement of a batch counts, and a remote ingestion's batch is one
   * invocation, so a batch of at most this many statements fits either plan.
   */
  queriesPerInvocation: 50,
  /** "Maximum database size" on Workers Paid (Free: 500 MB), in bytes. */
  databaseBytes: 10_000_000_000,
  /** "Maximum SQL query duration", in milliseconds. */
  queryMilliseconds: 30_000,
} as const;

/**
 * The most bytes of bound values one write batch carries: two rows of the
 * largest size D1 stores, so any single page (its row, up to `rowBytes`, and
 * its chunks, about as large again) fits one batch and is written whole,
 * while a batch stays a few seconds of work, far inside `queryMilliseconds`.
 */
export const MAX_BATCH_BYTES = 2 * D1_LIMITS.rowBytes;

/** Rows of `columns` bound values that one multi-row INSERT may carry within the parameter limit. */
export function rowsPerInsert(columns: number): number {
  return Math.floor(D1_LIMITS.boundParameters / columns);
}
