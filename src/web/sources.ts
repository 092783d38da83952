// GET /sources: read-only freshness of the sources a deployment refreshes. Nothing here adds, changes or triggers one.
import { Hono } from "hono";
import { readSession } from "../d1/sessions.ts";
import { sourcesStatus } from "../sources/status.ts";

/** The sources route, to mount at the root. */
export function sourcesSite(): Hono<{ Bindings: Env }> {
  const site = new Hono<{ Bindings: Env }>();
  site.get("/sources", async (c) => c.json(await sourcesStatus(readSession(c.env.DB)), 200, { "Cache-Control": "public, max-age=60" }));
  return site;
}
