// The HTTP around the REST methods: who may call from a browser (CORS), what
// caches may keep (Cache-Control, ETag), and the answers for methods and
// paths the API does not have.
import type { Handler, MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { etag, RETAINED_304_HEADERS } from "hono/etag";
import type { Caller } from "../auth/caller.ts";
import { AlmanacError } from "../errors.ts";
import { browserOriginGuard } from "../http/origin-guard.ts";
import { RefusalError } from "../http/refusal.ts";

/** What a browser script may send and read: keys, JSON bodies, revalidation, and the quota's headers. */
const CORS_ALLOW_HEADERS = ["Authorization", "Content-Type", "If-None-Match", "X-Goog-Api-Key", "X-Goog-Api-Client"];
const CORS_EXPOSE_HEADERS = ["ETag", "Retry-After", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy"];
/** Browsers may reuse a preflight for ten minutes, so a change to ALLOWED_ORIGINS reaches them within that. */
const CORS_MAX_AGE_SECONDS = 600;

/**
 * Browser access under the same rules as /mcp and the landing page
 * (src/http/origin-guard.ts): a foreign Host or Origin is refused with 403
 * PERMISSION_DENIED before anything is read or charged.
 *
 * @example rest.use("/v1/*", restOriginGuard(), restCors());
 */
export function restOriginGuard(): MiddlewareHandler<{ Bindings: Env }> {
  return browserOriginGuard(
    (origin) => `Origin "${origin.slice(0, 100)}" may not call this server; its operator can allow it by adding it to ALLOWED_ORIGINS`,
  );
}

/**
 * CORS headers for the origins `restOriginGuard` let through, on errors
 * too, so a page can read why it was refused.
 *
 * @example rest.use("/v1/*", restOriginGuard(), restCors());
 */
export function restCors(): MiddlewareHandler<{ Bindings: Env }> {
  return cors({
    origin: (origin) => origin,
    allowMethods: ["GET", "HEAD", "POST"],
    allowHeaders: CORS_ALLOW_HEADERS,
    exposeHeaders: CORS_EXPOSE_HEADERS,
    maxAge: CORS_MAX_AGE_SECONDS,
  });
}

/**
 * How long a successful read may be reused before it is revalidated with
 * its ETag. Pages change only when someone ingests, and a five-minute-old
 * page is as good as a new one to a reader; after that a 304 costs the
 * server a query and no body. Short enough that an ingest shows everywhere
 * within minutes.
 */
const READ_MAX_AGE_SECONDS = 300;

/**
 * Cache-Control for every REST response. A successful read without an API
 * key is `public`: anyone may read it, so a shared cache (a proxy, a CDN in
 * front of the server) may keep it and answer others for five minutes. With
 * a key it is `private`: the caller's own cache may keep it, but a shared one
 * must not hand it to callers without one (with PUBLIC_TIER off they would be
 * refused). Errors and answers are `no-store`: an answer costs quota and a
 * refusal is about this request. Vary names the key headers, so a cache never
 * serves an anonymous copy to a request whose key the server should check.
 *
 * @example rest.use("/v1/*", restCaching());
 */
export function restCaching(): MiddlewareHandler<{ Bindings: Env }> {
  return async (c, next) => {
    await next();
    const read = (c.req.method === "GET" || c.req.method === "HEAD") && (c.res.status === 200 || c.res.status === 304);
    const caller: Caller | undefined = c.get("caller");
    const scope = caller?.kind === "key" ? "private" : "public";
    c.header("Cache-Control", read ? `${scope}, max-age=${READ_MAX_AGE_SECONDS}` : "no-store");
    c.header("Vary", "X-Goog-Api-Key, Authorization", { append: true });
  };
}

/**
 * A strong ETag of each successful read's body (hono's etag, SHA-1 of the
 * bytes sent), and 304 Not Modified when If-None-Match names it. The 304
 * keeps the CORS headers, so a browser script can revalidate too.
 *
 * @example rest.use("/v1/*", restEtag());
 */
export function restEtag(): MiddlewareHandler {
  return etag({ retainedHeaders: [...RETAINED_304_HEADERS, "access-control-allow-origin", "access-control-expose-headers"] });
}

/**
 * 405 for a path the API has, asked with a method it does not serve there,
 * with Allow naming the one it does.
 *
 * @example rest.all("/v1:answerQuery", methodNotAllowed("POST"));
 */
export function methodNotAllowed(allowed: "GET" | "POST"): Handler<{ Bindings: Env }> {
  const allow = allowed === "GET" ? "GET, HEAD" : "POST";
  return (c) => {
    const error = new AlmanacError("UNIMPLEMENTED", `${c.req.method} is not served on ${c.req.path}; use ${allowed}`, undefined, { headers: { Allow: allow } });
    throw new RefusalError(error, { httpStatus: 405 });
  };
}

/** The REST methods, for the 404 that lists them. */
const REST_METHODS = "GET /v1/documents:searchDocumentChunks, GET /v1/documents/{name}, GET /v1/documents:batchGet and POST /v1:answerQuery";

/**
 * 404 NOT_FOUND for any other path under /v1, naming the methods there are.
 *
 * @example rest.all("/v1/*", restNotFound);
 */
export const restNotFound: Handler<{ Bindings: Env }> = (c) => {
  throw new AlmanacError("NOT_FOUND", `there is no REST method at ${c.req.method} ${c.req.path.slice(0, 100)}; this API (Google's Developer Knowledge API v1) has ${REST_METHODS}`);
};
