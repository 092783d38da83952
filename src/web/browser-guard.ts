import type { MiddlewareHandler } from "hono";
import { AlmanacError } from "../errors.ts";
import { hostRefusal, originIsAllowed } from "../http/browser-origins.ts";

/**
 * The browser rules of /mcp and /v1 for the landing page and its forms,
 * before anything is read or charged: a Host outside ALLOWED_HOSTS (DNS
 * rebinding: a page whose name is rebound to a local server) and an Origin
 * that is neither the server's own nor in ALLOWED_ORIGINS are refused with
 * 403. Browsers send Origin with every POST, so a form on another site
 * cannot spend a visitor's answer_query quota (cross-site request forgery);
 * following a link here from anywhere sends no Origin and still works.
 *
 * @example site.use("/try/*", browserGuard());
 */
export function browserGuard(): MiddlewareHandler<{ Bindings: Env }> {
  return async (c, next) => {
    const badHost = hostRefusal(c.env, c.req.raw);
    if (badHost) throw new AlmanacError("PERMISSION_DENIED", badHost);
    const origin = c.req.header("origin");
    if (origin !== undefined && !originIsAllowed(c.env, origin, c.req.raw)) {
      throw new AlmanacError(
        "PERMISSION_DENIED",
        `a page on ${origin.slice(0, 100)} may not use this server's forms; open ${new URL(c.req.url).origin} itself, or ask its operator to add that origin to ALLOWED_ORIGINS`,
      );
    }
    await next();
  };
}
