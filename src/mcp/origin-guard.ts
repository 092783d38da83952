import type { MiddlewareHandler } from "hono";
import { commaList } from "../config.ts";
import { AlmanacError } from "../errors.ts";
import { refusal } from "../http/refusal.ts";

/** Host names and origins compare case-insensitively (RFC 3986 §3.2.2, §6.2.2.1). */
function lowerCaseList(value: string | undefined): string[] {
  return commaList(value).map((item) => item.toLowerCase());
}

/**
 * DNS-rebinding protection for the MCP endpoint, as the MCP transport spec
 * requires: a browser page on a foreign origin must not reach a server, least
 * of all one on localhost. A request is refused with 403 when
 * - its Host is not in ALLOWED_HOSTS (when that list is set: `npm start` sets
 *   the loopback names, so a rebound evil.example.com is refused), or
 * - it carries an Origin that is neither the server's own nor in ALLOWED_ORIGINS.
 * Requests without Origin come from non-browser clients and pass. The refusal
 * is a JSON-RPC error with id null: the body of a refused request is never read.
 */
export function originGuard(): MiddlewareHandler<{ Bindings: Env }> {
  return async (c, next) => {
    const allowedHosts = lowerCaseList(c.env.ALLOWED_HOSTS);
    const host = (c.req.header("host") ?? new URL(c.req.url).host).toLowerCase();
    if (allowedHosts.length > 0 && !allowedHosts.includes(host) && !allowedHosts.includes(hostname(host))) {
      return forbidden(`Host "${host}" is not served here; allowed hosts: ${allowedHosts.join(", ")}`);
    }
    const origin = c.req.header("origin");
    if (origin !== undefined) {
      const allowedOrigins = lowerCaseList(c.env.ALLOWED_ORIGINS);
      const ownOrigin = `${new URL(c.req.url).protocol}//${host}`;
      const normalized = origin.toLowerCase();
      if (normalized !== ownOrigin && !allowedOrigins.includes("*") && !allowedOrigins.includes(normalized)) {
        return forbidden(`Origin "${origin}" may not call this MCP server; its operator can allow it by adding it to ALLOWED_ORIGINS`);
      }
    }
    await next();
  };
}

/** "localhost:8787" → "localhost", "[::1]:8787" → "[::1]". */
function hostname(host: string): string {
  return host.replace(/:\d+$/, "");
}

/** 403 PERMISSION_DENIED. */
function forbidden(message: string): Response {
  return refusal("json-rpc", new AlmanacError("PERMISSION_DENIED", message));
}
