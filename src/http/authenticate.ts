import type { MiddlewareHandler } from "hono";
import { type Caller, identifyCaller } from "../auth/caller.ts";

declare module "hono" {
  interface ContextVariableMap {
    /** Set by `authenticateCaller` for every request it lets through. */
    caller: Caller;
  }
}

/**
 * Identifies the caller of every request on a route (CORS preflights aside)
 * and stores it as `c.get("caller")`, or throws UNAUTHENTICATED: an unknown
 * or revoked key, or no key while PUBLIC_TIER is off (src/auth/caller.ts
 * decides; this is its middleware). Each transport's onError answers it with
 * 401: a JSON-RPC error on /mcp, Google's error body on /v1. On /mcp it runs
 * after `readJsonRpcMessage`, so that a 401 answers each refused request by its id.
 *
 * @example mcp.use("/mcp", readJsonRpcMessage(), authenticateCaller());
 */
export function authenticateCaller(): MiddlewareHandler<{ Bindings: Env }> {
  return async (c, next) => {
    // A CORS preflight never carries credentials (Fetch standard), and answering it exposes nothing.
    if (c.req.method === "OPTIONS") return next();
    c.set("caller", await identifyCaller(c.env, c.req.raw));
    await next();
  };
}
