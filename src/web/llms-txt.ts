// GET /llms.txt (the corpus in llmstxt.org form) and GET /documents/<host>/<path>.md
// (each page's Markdown), behind the landing page's browser rules and the
// per-caller get limit.
import { type Context, Hono } from "hono";
import { readSession } from "../d1/sessions.ts";
import { MAX_LLMS_LINKS, MAX_LLMS_SOURCES, formatLlmsTxt, listCorpusForLlms, nameOfMarkdownPath, pageMarkdown } from "../documents/read/llms-txt.ts";
import { readCacheControl, readerCaller, viewing } from "../http/viewer.ts";
import { AlmanacError } from "../errors.ts";
import { callLimits } from "../http/call-limits.ts";
import { browserOriginGuard } from "../http/origin-guard.ts";

/** The H1 of /llms.txt. */
const SERVER_NAME = "Almanac";

/** Text answers: a minute of caching lets crawlers re-read cheaply while an ingestion shows soon after. */
const TEXT_MAX_AGE_SECONDS = 60;

/** The headers of a text answer to `c`'s caller: a keyed caller's view is its own (private), a keyless one is shared (public). */
function textHeaders(c: Context<{ Bindings: Env }>, contentType: string): Record<string, string> {
  return { "Cache-Control": readCacheControl(c.get("caller"), TEXT_MAX_AGE_SECONDS), "X-Content-Type-Options": "nosniff", "Content-Type": contentType };
}

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
  // Each is one get, counted with get_documents and documents.get: a crawler of every page spends a caller's minute like any other reader.
  const getLimit = callLimits(() => ({ get: 1 }));
  // A key opens its audiences' restricted sources here too (src/http/viewer.ts); without one, the public ones.
  site.get("/llms.txt", readerCaller(), getLimit, viewing("llms.txt", "llms.txt"), async (c) => {
    const listing = await listCorpusForLlms(readSession(c.env.DB), MAX_LLMS_LINKS, MAX_LLMS_SOURCES, c.get("viewer"));
    const text = formatLlmsTxt(listing, { serverName: SERVER_NAME, origin: new URL(c.req.url).origin });
    return c.text(text, 200, textHeaders(c, "text/plain; charset=utf-8"));
  });
  site.get("/documents/*", readerCaller(), getLimit, viewing("markdown", "page"), async (c) => {
    // The raw path: names keep the percent-encoding their URIs have.
    const path = new URL(c.req.url).pathname;
    const name = nameOfMarkdownPath(path);
    if (!name) throw new AlmanacError("NOT_FOUND", `${path.slice(0, 200)} is not a page's Markdown; pages are at /documents/<host>/<path>.md, as /llms.txt lists them`);
    // A page the caller may not see is missing, with the same message.
    const markdown = await pageMarkdown(readSession(c.env.DB), name, c.get("viewer"));
    if (markdown === null) throw new AlmanacError("NOT_FOUND", `no page named ${name.slice(0, 200)}; /llms.txt lists the pages, search_documents finds them`);
    return c.body(markdown, 200, textHeaders(c, "text/markdown; charset=utf-8"));
  });
  return site;
}
