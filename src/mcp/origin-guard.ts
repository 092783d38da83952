import type { MiddlewareHandler } from "hono";
import { quoted } from "../text/quote.ts";
import { AlmanacError } from "../errors.ts";
import { hostRefusal, originIsAllowed } from "../http/browser-origins.ts";
import { refusal } from "../http/refusal.ts";

/**
 * DNS-rebinding protection for the MCP endpoint, as the MCP transport spec
 * requires: a browser page on a foreign origin must not reach a server, least
 * of all one on localhost. A request is refused with 403 when
 * - its Host is not in ALLOWED_HOSTS (when that list is set: `npm start` sets
 *   the loopback names, so a rebound evil.example.com is refused), or
 * - it carries an Origin that is neither the server's own nor in ALLOWED_ORIGINS.
 * Requests without Origin come from non-browser clients and pass. The refusal
 * is a JSON-RPC error with id null: the body of a refused request is never read.
 * The rules themselves are the REST facade's too (src/http/browser-origins.ts).
 */
export function originGuard(): MiddlewareHandler<{ Bindings: Env }> {
  return async (c, next) => {
    const badHost = hostRefusal(c.env, c.req.raw);
    if (badHost) return forbidden(badHost);
    const origin = c.req.header("origin");
    if (origin !== undefined && !originIsAllowed(c.env, origin, c.req.raw)) {
      return forbidden(`Origin "${quoted(origin)}" may not call this MCP server; its operator can allow it by adding it to ALLOWED_ORIGINS`);
    }
    await next();
  };
}

/** 403 PERMISSION_DENIED. */
function forbidden(message: string): Response {
  return refusal("json-rpc", new AlmanacError("PERMISSION_DENIED", message));
}
