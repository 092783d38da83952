/**
 * Reads near the user: D1's Sessions API. With read replication switched on
 * for the database, a session's queries go to the nearest replica, and each
 * query of the session sees at least what the one before it saw (sequential
 * consistency). Without replication a session is the primary, as before.
 * Writes (ingestion, API keys) never go through here: they use the database
 * itself, on the primary.
 */

/** What read paths need of D1: a session (`withSession`) and the database itself both offer it. */
export type D1Reader = Pick<D1Database, "prepare" | "batch">;

/**
 * Where a run of reads starts: the bookmark of an earlier session (so it
 * sees everything that one saw), or anywhere ("first-unconstrained": the
 * nearest replica, however recent).
 */
export class ReadConsistency {
  #bookmark: string | undefined;

  constructor(bookmark?: string) {
    this.#bookmark = bookmark;
  }

  /** The bookmark the next session starts from; undefined until a session has read something. */
  get bookmark(): string | undefined {
    return this.#bookmark;
  }

  /**
   * Runs `work` with a read session of `db` that starts at this object's
   * bookmark, then keeps the session's newest bookmark for the next run, so
   * runs in sequence (one MCP session's calls) never see the corpus go back
   * in time even when they land on different replicas.
   *
   * @example const hits = await reads.read(env.DB, (db) => searchDocuments(db, request));
   */
  async read<T>(db: D1Database, work: (reader: D1Reader) => Promise<T>): Promise<T> {
    const session = db.withSession(this.#bookmark ?? "first-unconstrained");
    try {
      return await work(session);
    } finally {
      this.#bookmark = session.getBookmark() ?? this.#bookmark;
    }
  }
}

/**
 * Runs `work` with a fresh read session of `db` (one request's reads, from
 * the nearest replica, sequentially consistent among themselves).
 *
 * @example const count = await readOnce(env.DB, countDocuments);
 */
export function readOnce<T>(db: D1Database, work: (reader: D1Reader) => Promise<T>): Promise<T> {
  return new ReadConsistency().read(db, work);
}

/**
 * A fresh read session of `db` for one request whose reads are written in
 * sequence (a REST handler): the nearest replica, sequentially consistent.
 *
 * @example const hits = await searchDocuments(readSession(c.env.DB), request);
 */
export function readSession(db: D1Database): D1Reader {
  return db.withSession("first-unconstrained");
}
