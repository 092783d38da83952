// MCP's security guidance: "bind session IDs to user-specific information".
// A 2025-era session belongs to the caller that opened it (its API key, or
// its address on the public tier); another caller is told what it would be
// told of any unknown session.
import { type Caller, callerIdentity } from "../auth/caller.ts";
import { AlmanacError } from "../errors.ts";
import { refusal } from "../http/refusal.ts";
import { MAX_SESSIONS_PER_CALLER, SESSION_IDLE_MS, type SessionRegistry } from "./session-registry.ts";

/** The session cap from configuration; a missing or unusable value means the default, logged once per value. */
export function sessionCap(env: Pick<Env, "MCP_SESSIONS_PER_CALLER">): number {
  const raw = String(env.MCP_SESSIONS_PER_CALLER ?? "").trim();
  if (raw === "") return MAX_SESSIONS_PER_CALLER;
  const value = Number(raw);
  if (Number.isInteger(value) && value >= 1) return value;
  if (!warnedCaps.has(raw)) {
    warnedCaps.add(raw);
    console.warn(`MCP_SESSIONS_PER_CALLER "${raw}" is not a whole number of at least 1; using ${MAX_SESSIONS_PER_CALLER}`);
  }
  return MAX_SESSIONS_PER_CALLER;
}
const warnedCaps = new Set<string>();

/** The caller's registry of open sessions. */
function registryOf(env: Env, caller: Caller): DurableObjectStub<SessionRegistry> {
  return env.SESSION_REGISTRY.get(env.SESSION_REGISTRY.idFromName(callerIdentity(caller)));
}

/**
 * Serves a 2025-era request with `forward` only within the caller's own
 * sessions: an initialize opens one if the caller is under
 * its cap (MCP_SESSIONS_PER_CALLER, default MAX_SESSIONS_PER_CALLER; else 429), a request in a session (POST, GET,
 * DELETE) reaches it only if this caller opened it and it has not been idle
 * past SESSION_IDLE_MS (else 404, as for an unknown session).
 */
export async function inCallersSession(request: Request, env: Env, caller: Caller, forward: (request: Request) => Promise<Response>): Promise<Response> {
  const registry = registryOf(env, caller);
  const sessionId = request.headers.get("mcp-session-id");
  if (sessionId === null) {
    // A GET without a session is the old SSE transport's, which opens nothing here; agents answers it.
    if (request.method !== "POST") return forward(request);
    const reservation = crypto.randomUUID();
    const cap = sessionCap(env);
    const admission = await registry.reserve(reservation, Date.now(), cap);
    if (!admission.ok) return tooManySessions(admission.open, cap, admission.retryAfterSeconds);
    let response: Response;
    try {
      response = await forward(request);
    } catch (error) {
      await registry.release(reservation);
      throw error;
    }
    const opened = response.headers.get("mcp-session-id");
    if (opened && response.status < 400) await registry.confirm(reservation, opened, Date.now());
    else await registry.release(reservation);
    return response;
  }
  if (!(await registry.use(sessionId, Date.now()))) return sessionNotFound();
  const response = await forward(request);
  if (request.method === "DELETE" && response.status < 400) await registry.close(sessionId);
  return response;
}

/** What agents answers for a session it does not know, word for word, so a foreign session looks like none. */
function sessionNotFound(): Response {
  return Response.json({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }, { status: 404 });
}

/** 429 with Retry-After: when the caller's oldest idle session will have ended. */
function tooManySessions(open: number, cap: number, retryAfterSeconds: number): Response {
  const minutes = SESSION_IDLE_MS / 60_000;
  return refusal(
    "json-rpc",
    new AlmanacError(
      "RESOURCE_EXHAUSTED",
      `this caller already has ${open} open MCP sessions, the most one caller may hold (${cap}); end sessions you no longer use with DELETE /mcp (Mcp-Session-Id), or reuse one; a session unused for ${minutes} minutes ends by itself`,
      undefined,
      { headers: { "Retry-After": String(retryAfterSeconds) }, data: { openSessions: open, maxSessions: cap, retryAfterSeconds } },
    ),
  );
}
