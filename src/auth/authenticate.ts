import type { MiddlewareHandler } from "hono";
import { toAlmanacError } from "../errors.ts";
import { type Caller, identifyCaller } from "./caller.ts";
import { type RefusalFormat, refusal } from "../http/refusal.ts";

declare module "hono" {
  interface ContextVariableMap {
    /** Set by `authenticateCaller` for every request it lets through. */
    caller: Caller;
  }
}

/**
 * Identifies the caller of every request on a route (CORS preflights aside)
 * and stores it as `c.get("caller")`, or answers 401: an unknown or revoked key, or no key
 * while PUBLIC_TIER is off. `format` picks the error body: `json-rpc` for
 * /mcp, `google` for the REST facade. On /mcp it runs after
 * `readJsonRpcMessage`, so that a 401 answers each refused request by its id.
 *
 * @example app.use("/mcp", originGuard(), readJsonRpcMessage(), authenticateCaller({ format: "json-rpc" }));
 */
export function authenticateCaller(options: { format: RefusalFormat }): MiddlewareHandler<{ Bindings: Env }> {
  const { format } = options;
  return async (c, next) => {
    // A CORS preflight never carries credentials (Fetch standard), and answering it exposes nothing.
    if (c.req.method === "OPTIONS") return next();
    let caller: Caller;
    try {
      caller = await identifyCaller(c.env, c.req.raw);
    } catch (thrown) {
      const error = toAlmanacError(thrown);
      if (error.status === "INTERNAL") console.error("authentication failed", error.detail ?? error.message);
      // RFC 9110 §15.5.2: a 401 names the scheme the server accepts.
      const headers: Record<string, string> = error.status === "UNAUTHENTICATED" ? { "WWW-Authenticate": 'Bearer realm="almanac"' } : {};
      const message = c.get("jsonRpcMessage");
      return refusal(format, error, { headers, ids: message?.requestIds, batch: message?.batch });
    }
    c.set("caller", caller);
    await next();
  };
}
