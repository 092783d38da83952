// GET /sources: read-only freshness of the sources a deployment refreshes. Nothing here adds, changes or triggers one.
import { Hono } from "hono";
import { readSession } from "../d1/sessions.ts";
import { browserOriginGuard } from "../http/origin-guard.ts";
import { sourcesStatus } from "../sources/status.ts";
import { readerCaller, viewing } from "../http/viewer.ts";

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
  // A key opens its audiences' restricted sources (src/http/viewer.ts); without one, the public ones are listed.
  site.get("/sources", readerCaller(), viewing("sources", "sources"), async (c) =>
    c.json(await sourcesStatus(readSession(c.env.DB), c.get("viewer")), 200, { "Cache-Control": "private, max-age=60" }),
  );
  return site;
}
