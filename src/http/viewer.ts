import type { MiddlewareHandler } from "hono";
import { type Caller, callerAudiences, clientAddress, identifyCaller, presentedApiKey } from "../auth/caller.ts";
import { type Door, recordAccess } from "../documents/access/audit.ts";
import { type Viewer, viewerWith } from "../documents/access/visibility.ts";

declare module "hono" {
  interface ContextVariableMap {
    /** Set by `viewing`: who reads the corpus in this request, and what it was given of restricted sources. */
    viewer: Viewer;
  }
}

/**
 * The corpus reads of a route as its caller sees them (src/documents/access/visibility.ts):
 * sets `c.get("viewer")` from the caller's audiences, and once the route has
 * answered successfully records what it returned of restricted data sources
 * in the audit log (src/documents/access/audit.ts), before the answer leaves. Runs
 * after the caller is identified.
 *
 * @example rest.get("/v1/documents:batchGet", viewing("rest", "documents.batchGet"), batchGetDocuments);
 */
export function viewing(door: Door, tool: string): MiddlewareHandler<{ Bindings: Env }> {
  return async (c, next) => {
    const caller: Caller | undefined = c.get("caller");
    const viewer = viewerWith(caller ? callerAudiences(caller) : []);
    c.set("viewer", viewer);
    await next();
    if (c.res.status < 400) await recordAccess(c.env.DB, { keyId: caller?.kind === "key" ? caller.keyId : null }, door, tool, viewer);
  };
}

/**
 * Identifies the caller of the routes that were always open to anyone
 * (/llms.txt, a page's Markdown, /sources, /healthz): a key, if sent, must
 * be valid (401 otherwise, as on every door) and opens its audiences'
 * sources; without one the caller reads the public sources, whatever PUBLIC_TIER says.
 *
 * @example site.get("/llms.txt", readerCaller(), viewing("llms.txt", "llms.txt"), …);
 */
export function readerCaller(): MiddlewareHandler<{ Bindings: Env }> {
  return async (c, next) => {
    const caller: Caller = presentedApiKey(c.req.raw)
      ? await identifyCaller(c.env, c.req.raw)
      : { kind: "anonymous", address: clientAddress(c.req.header("cf-connecting-ip") ?? null) };
    c.set("caller", caller);
    await next();
    // What one caller reads may differ from another's: a shared cache keeps only the keyless (public) view, per key header.
    c.header("Vary", "X-Goog-Api-Key, Authorization", { append: true });
  };
}

/** Cache-Control for a successful read by `caller`: `public` only for the keyless view, which every keyless caller shares. */
export function readCacheControl(caller: Caller, maxAgeSeconds: number): string {
  return `${caller.kind === "key" ? "private" : "public"}, max-age=${maxAgeSeconds}`;
}
