// GET /llms.txt (the corpus in llmstxt.org form) and GET /documents/<host>/<path>.md
// (each page's Markdown), behind the landing page's browser rules.
import { Hono } from "hono";
import { readSession } from "../d1/sessions.ts";
import { formatLlmsTxt, listCorpusForLlms, nameOfMarkdownPath, pageMarkdown } from "../documents/read/llms-txt.ts";
import { AlmanacError } from "../errors.ts";
import { browserOriginGuard } from "../http/origin-guard.ts";

/** The H1 of /llms.txt. */
const SERVER_NAME = "Almanac";

/** Text answers: a minute of caching lets crawlers re-read cheaply while an ingestion shows soon after. */
const TEXT_HEADERS = { "Cache-Control": "public, max-age=60", "X-Content-Type-Options": "nosniff" };

/**
 * The llms.txt routes, to mount at the root. `/documents/…` does not meet
 * the REST facade's `/v1/documents/…` or any other route.
 *
 * @example app.route("/", llmsTxtSite());
 */
export function llmsTxtSite(): Hono<{ Bindings: Env }> {
  const site = new Hono<{ Bindings: Env }>();
  // The landing page's rules (src/http/origin-guard.ts): a rebound Host or another site's page reads nothing.
  const guard = browserOriginGuard(
    (origin, c) => `a page on ${origin.slice(0, 100)} may not read this server's pages; fetch ${new URL(c.req.url).origin} without a browser, or ask its operator to add that origin to ALLOWED_ORIGINS`,
  );
  for (const path of ["/llms.txt", "/documents/*"]) site.use(path, guard);
  site.get("/llms.txt", async (c) => {
    const listing = await listCorpusForLlms(readSession(c.env.DB));
    const text = formatLlmsTxt(listing, { serverName: SERVER_NAME, origin: new URL(c.req.url).origin });
    return c.text(text, 200, { ...TEXT_HEADERS, "Content-Type": "text/plain; charset=utf-8" });
  });
  site.get("/documents/*", async (c) => {
    // The raw path: names keep the percent-encoding their URIs have.
    const path = new URL(c.req.url).pathname;
    const name = nameOfMarkdownPath(path);
    if (!name) throw new AlmanacError("NOT_FOUND", `${path.slice(0, 200)} is not a page's Markdown; pages are at /documents/<host>/<path>.md, as /llms.txt lists them`);
    const markdown = await pageMarkdown(readSession(c.env.DB), name);
    if (markdown === null) throw new AlmanacError("NOT_FOUND", `no page named ${name.slice(0, 200)}; /llms.txt lists the pages, search_documents finds them`);
    return c.body(markdown, 200, { ...TEXT_HEADERS, "Content-Type": "text/markdown; charset=utf-8" });
  });
  return site;
}
