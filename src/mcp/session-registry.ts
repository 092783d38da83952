import { getAgentByName } from "agents";
import { DurableObject } from "cloudflare:workers";

/**
 * How long a 2025-era session may sit unused before it ends: an hour covers
 * a person pausing over a conversation (any request, a ping included, counts
 * as use), while a script's abandoned sessions are gone by the next hour.
 * A client that comes back later gets 404 and, as the MCP spec tells it to,
 * opens a new session.
 */
export const SESSION_IDLE_MS = 60 * 60 * 1000;

/**
 * The most sessions one caller (an API key, or an anonymous address) may
 * hold open at once, unless MCP_SESSIONS_PER_CALLER says otherwise. Every
 * MCP client keeps one session per server while it runs, so fifty covers an
 * office of clients behind one address or sharing one key; a caller opening
 * sessions in a loop stops at fifty instead of leaving a Durable Object
 * store behind per request.
 */
export const MAX_SESSIONS_PER_CALLER = 50;

/** Prefix of a place held for a session whose initialize is under way (its id is not known yet). */
const RESERVATION = "reserved:";

interface SessionRow extends Record<string, SqlStorageValue> {
  id: string;
  last_ms: number;
}

/** The answer to a request to open a session. */
type Admission = { ok: true } | { ok: false; open: number; retryAfterSeconds: number };

/**
 * The open 2025-era MCP sessions of one caller identity (`idFromName` of the
 * same identity as its QuotaCounter): which session ids the caller opened,
 * and when each was last used. A Durable Object runs one call at a time, so
 * the count is exact under any concurrency; two initializes at the cap
 * cannot both pass. The Worker asks it before forwarding any request to a
 * session, so a session answers only the caller that opened it.
 */
export class SessionRegistry extends DurableObject<Env> {
  private schemaReady = false;

  /** Holds a place for a session about to be opened, if the caller holds fewer than `cap`. */
  async reserve(reservation: string, now: number, cap: number): Promise<Admission> {
    await this.expire(now);
    const open = this.count();
    if (open >= cap) {
      const oldest = this.sql<{ last_ms: number }>("SELECT min(last_ms) AS last_ms FROM sessions")[0]?.last_ms ?? now;
      return { ok: false, open, retryAfterSeconds: Math.max(1, Math.ceil((oldest + SESSION_IDLE_MS - now) / 1000)) };
    }
    this.sql("INSERT OR REPLACE INTO sessions (id, last_ms) VALUES (?, ?)", RESERVATION + reservation, now);
    await this.scheduleExpiry();
    return { ok: true };
  }

  /** Turns a reservation into the session the initialize opened. */
  async confirm(reservation: string, sessionId: string, now: number): Promise<void> {
    this.sql("DELETE FROM sessions WHERE id = ?", RESERVATION + reservation);
    this.sql("INSERT OR REPLACE INTO sessions (id, last_ms) VALUES (?, ?)", sessionId, now);
  }

  /** Gives back a reservation whose initialize opened no session. */
  async release(reservation: string): Promise<void> {
    await this.forget(RESERVATION + reservation);
  }

  /**
   * Whether `sessionId` is one of this caller's open sessions, marking it
   * used; a session idle past SESSION_IDLE_MS is ended here and is no longer open.
   */
  async use(sessionId: string, now: number): Promise<boolean> {
    const [row] = this.sql<SessionRow>("SELECT id, last_ms FROM sessions WHERE id = ?", sessionId);
    if (!row) return false;
    if (row.last_ms + SESSION_IDLE_MS <= now) {
      await this.expire(now);
      return false;
    }
    this.sql("UPDATE sessions SET last_ms = ? WHERE id = ?", now, sessionId);
    return true;
  }

  /** Forgets a session its caller ended (DELETE). */
  async close(sessionId: string): Promise<void> {
    await this.forget(sessionId);
  }

  /** Ends the sessions idle too long, then waits for the next one to be. */
  override async alarm(): Promise<void> {
    await this.expire(Date.now());
    await this.scheduleExpiry();
  }

  /** Ends every session idle past SESSION_IDLE_MS: its Durable Object's storage is deleted (see AlmanacMcp.endSession). */
  private async expire(now: number): Promise<void> {
    const idle = this.sql<SessionRow>("SELECT id, last_ms FROM sessions WHERE last_ms <= ?", now - SESSION_IDLE_MS);
    for (const { id } of idle) {
      if (!id.startsWith(RESERVATION)) await endSession(this.env, id);
      this.sql("DELETE FROM sessions WHERE id = ?", id);
    }
    if (idle.length > 0 && this.count() === 0) await this.wipe();
  }

  private async forget(id: string): Promise<void> {
    this.sql("DELETE FROM sessions WHERE id = ?", id);
    if (this.count() === 0) await this.wipe();
  }

  /** An alarm for the next session to go idle; none when there is none. */
  private async scheduleExpiry(): Promise<void> {
    const next = this.sql<{ last_ms: number | null }>("SELECT min(last_ms) AS last_ms FROM sessions")[0]?.last_ms;
    if (next === null || next === undefined) return;
    await this.ctx.storage.setAlarm(next + SESSION_IDLE_MS);
  }

  /** A caller with no sessions keeps no storage: every anonymous address would otherwise leave a table behind. */
  private async wipe(): Promise<void> {
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    this.schemaReady = false;
  }

  private count(): number {
    return this.sql<{ n: number }>("SELECT count(*) AS n FROM sessions")[0]?.n ?? 0;
  }

  private sql<T extends Record<string, SqlStorageValue>>(query: string, ...bindings: SqlStorageValue[]): T[] {
    if (!this.schemaReady) {
      this.ctx.storage.sql.exec(
        `CREATE TABLE IF NOT EXISTS sessions (
           id TEXT PRIMARY KEY,       -- the Mcp-Session-Id, or reserved:<uuid> while its initialize runs
           last_ms INTEGER NOT NULL   -- when the caller last used it, epoch ms
         )`,
      );
      this.schemaReady = true;
    }
    return this.ctx.storage.sql.exec<T>(query, ...bindings).toArray();
  }
}

/** The Durable Object name agents gives a Streamable HTTP session. */
export function sessionObjectName(sessionId: string): string {
  return `streamable-http:${sessionId}`;
}

/** Ends a session as DELETE does: it answers 404 from now on and its storage is deleted. */
async function endSession(env: Env, sessionId: string): Promise<void> {
  const session = await getAgentByName(env.MCP_OBJECT, sessionObjectName(sessionId));
  await session.endSession();
}
