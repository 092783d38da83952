import type { Context, MiddlewareHandler } from "hono";
import { AlmanacError } from "../errors.ts";
import { hostRefusal, originIsAllowed } from "./browser-origins.ts";

/**
 * The browser rules every transport applies before anything is read or
 * charged, throwing 403 PERMISSION_DENIED (each transport's onError answers
 * it in its own format):
 * - a Host outside ALLOWED_HOSTS, when that list is set: the DNS-rebinding
 *   defence (a page on evil.example whose name is rebound to 127.0.0.1), and
 * - an Origin that is neither the server's own nor in ALLOWED_ORIGINS: a
 *   page on another site may not call the server or post its forms (which
 *   would spend the visitor's answer_query quota without a preflight).
 * Requests without Origin (non-browser clients, a followed link) pass.
 * `foreignOrigin` words the Origin refusal for the transport's readers.
 *
 * @example mcp.use("/mcp", browserOriginGuard((origin) => `Origin "${origin}" may not call this MCP server; …`));
 */
export function browserOriginGuard(foreignOrigin: (origin: string, c: Context<{ Bindings: Env }>) => string): MiddlewareHandler<{ Bindings: Env }> {
  return async (c, next) => {
    const badHost = hostRefusal(c.env, c.req.raw);
    if (badHost) throw new AlmanacError("PERMISSION_DENIED", badHost);
    const origin = c.req.header("origin");
    if (origin !== undefined && !originIsAllowed(c.env, origin, c.req.raw)) throw new AlmanacError("PERMISSION_DENIED", foreignOrigin(origin, c));
    await next();
  };
}
