// GET /sources: read-only freshness of the sources a deployment refreshes. Nothing here adds, changes or triggers one.
import { Hono } from "hono";
import { readSession } from "../d1/sessions.ts";
import { browserOriginGuard } from "../http/origin-guard.ts";
import { sourcesStatus } from "../sources/status.ts";

/** The sources route, to mount at the root. */
export function sourcesSite(): Hono<{ Bindings: Env }> {
  const site = new Hono<{ Bindings: Env }>();
  // The landing page's rules (src/http/origin-guard.ts): a rebound Host or another site's page reads nothing.
  site.use(
    "/sources",
    browserOriginGuard(
      (origin, c) => `a page on ${origin.slice(0, 100)} may not read this server's sources; fetch ${new URL(c.req.url).origin}/sources without a browser, or ask its operator to add that origin to ALLOWED_ORIGINS`,
    ),
  );
  // Private: a shared cache must not keep one deployment's run errors for another caller.
  site.get("/sources", async (c) => c.json(await sourcesStatus(readSession(c.env.DB)), 200, { "Cache-Control": "private, max-age=60" }));
  return site;
}
