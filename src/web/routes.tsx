// The landing site: GET / and the "Try it" panels' routes. Every panel is a
// plain HTML form answered with a whole page (the script only swaps parts
// of it), behind the same browser rules, caller check and answer_query
// quota as /mcp and /v1, calling the same domain functions as the tools.
import { type Context, type ErrorHandler, Hono, type MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { type Caller, callerAudiences, identifyCaller } from "../auth/caller.ts";
import { recordAccess } from "../documents/access/audit.ts";
import { type Viewer, viewerWith } from "../documents/access/visibility.ts";
import { viewing } from "../http/viewer.ts";
import { retrievalFor } from "../documents/search/retrieval.ts";
import { compileFilter } from "../documents/search/filter.ts";
import { AlmanacError, HTTP_STATUS, toAlmanacError } from "../errors.ts";
import { answerQuota } from "../http/answer-quota.ts";
import { callLimits } from "../http/call-limits.ts";
import { errorHandlerAnswering } from "../http/error-handler.ts";
import { browserOriginGuard } from "../http/origin-guard.ts";
import { requireTool as requireToolFor, toolTurnedOff } from "../http/require-tool.ts";
import { getQueryLibraryEntry } from "../library/get.ts";
import { searchQueryLibrary } from "../library/search.ts";
import { answerQueryTool } from "../tools/answer-query.ts";
import { enabledTools, toolIsEnabled } from "../tools/index.ts";
import { queryLibraryGetTool } from "../tools/query-library-get.ts";
import { queryLibrarySearchTool } from "../tools/query-library-search.ts";
import { searchDocumentsTool } from "../tools/search-documents.ts";
import { ErrorPage } from "./error-page.tsx";
import { type Outcome, loadOverview } from "./overview-data.ts";
import { LandingPage } from "./page.tsx";
import type { PanelError, PanelStates } from "./panel-states.ts";
import { pageHeaders } from "./security-headers.ts";
import { type TryRequest, dataSourceFilter, entryParams, readTryRequest, toolArguments } from "./try-request.ts";
import { webCaller } from "./web-caller.ts";

/** Where the site finds the other transports it points people to. */
interface LandingOptions {
  /** The MCP endpoint's path. */
  mcpPath: string;
  /**
   * The REST facade's base path (`/v1`), shown as the REST base URL; leave
   * it out while the server has no REST facade. The one place it plugs in.
   */
  restBasePath?: string;
}

/** A form is a question or an intent and a key: 16 KiB is far more than any, and refuses bodies that are not forms. */
const MAX_FORM_BYTES = 16 * 1024;

/** Entries the library panel lists per search: a shortlist a person can scan. */
const LIBRARY_HITS = 10;

/**
 * The landing site, to mount at the root.
 *
 * @example app.route("/", landingSite({ mcpPath: "/mcp", restBasePath: "/v1" }));
 */
export function landingSite(options: LandingOptions): Hono<{ Bindings: Env }> {
  const site = new Hono<{ Bindings: Env }>();
  site.onError(pageForError(options));
  for (const path of ["/", "/try/*"]) site.use(path, landingOriginGuard());
  const form = bodyLimit({
    maxSize: MAX_FORM_BYTES,
    onError: () => {
      throw new AlmanacError("INVALID_ARGUMENT", `the form is larger than ${MAX_FORM_BYTES} bytes; a question or an intent is at most 500 characters`);
    },
  });
  const render = (c: Context<{ Bindings: Env }>, panels: PanelStates, caller: Outcome<Caller>, status?: ContentfulStatusCode, headers?: Record<string, string>) =>
    renderPage(c, options, { panels, caller, status, headers });

  site.get("/", async (c) => render(c, {}, await callerOf(c)));

  // A search counts against the caller's per-minute limit as search_documents does; opening the empty panel does not.
  const searchLimit = callLimits((c) => (tryRequestFor(c, "search").input.query === undefined ? {} : { search: 1 }));
  site.get("/try/search", requireTool(searchDocumentsTool.name), readTryRequest("search"), webCaller(), searchLimit, viewing("web", searchDocumentsTool.name), async (c) => {
    const { input } = tryRequestFor(c, "search");
    if (input.query === undefined) return render(c, { search: { input } }, known(c));
    const args = toolArguments(searchDocumentsTool, { query: input.query, pageToken: input.pageToken, filter: dataSourceFilter(input.dataSource) });
    const result = await retrievalFor(c.env, { viewer: c.get("viewer") }).search(args);
    return render(c, { search: { input, result } }, known(c));
  });

  // Opening the ask panel by address (a link, a reload after an answer) fills the form and charges nothing.
  site.get("/try/ask", requireTool(answerQueryTool.name), readTryRequest("ask"), async (c) => render(c, { ask: { input: tryRequestFor(c, "ask").input } }, await callerOf(c)));
  site.post(
    "/try/ask",
    requireTool(answerQueryTool.name),
    form,
    readTryRequest("ask"),
    webCaller(),
    // Checked before the gate, so a refused question is never charged.
    async (c, next) => {
      askArguments(c);
      await next();
    },
    // The gate /mcp and /v1 use: charged before answering, refunded when the answer fails, 429 when spent.
    answerQuota({ calls: () => 1 }),
    viewing("web", answerQueryTool.name),
    async (c) => {
      const { input } = tryRequestFor(c, "ask");
      const answer = await retrievalFor(c.env, { viewer: c.get("viewer") }).answer(askArguments(c));
      return render(c, { ask: { input, answer } }, known(c));
    },
  );

  site.get("/try/library", readTryRequest("library"), webCaller(), async (c) => {
    const { input } = tryRequestFor(c, "library");
    const search =
      input.intent === undefined
        ? undefined
        : await searchQueryLibrary(
            c.env,
            toolArguments(queryLibrarySearchTool, {
              intent: requireEnabled(c.env, queryLibrarySearchTool.name, input.intent),
              provider: input.provider || undefined,
              include_mutations: input.includeMutations,
              limit: LIBRARY_HITS,
            }),
          );
    const entry =
      input.id === undefined
        ? undefined
        : await getQueryLibraryEntry(c.env, {
            id: requireEnabled(c.env, queryLibraryGetTool.name, input.id),
            params: input.params.length > 0 ? entryParams(input.params) : undefined,
          });
    return render(c, { library: { input, search, entry } }, known(c));
  });

  site.post("/try/allowance", requireTool(answerQueryTool.name), form, readTryRequest("allowance"), webCaller(), async (c) => render(c, {}, known(c)));
  return site;
}

function tryRequestFor<Panel extends TryRequest["panel"]>(c: Context<{ Bindings: Env }>, panel: Panel): Extract<TryRequest, { panel: Panel }> {
  const request = c.get("tryRequest");
  if (request.panel !== panel) throw new AlmanacError("INTERNAL", `route for the ${panel} panel read a ${request.panel} form`);
  return request as Extract<TryRequest, { panel: Panel }>;
}

/** The ask form as answer_query's arguments, checked by its schema; the source filter compiled, so a bad one is refused before charging. */
function askArguments(c: Context<{ Bindings: Env }>): { query: string; filter?: string } {
  const { input } = tryRequestFor(c, "ask");
  const args = toolArguments(answerQueryTool, { query: input.query ?? "", filter: dataSourceFilter(input.dataSource) });
  compileFilter(args.filter);
  return args;
}

function enabledNames(env: Env): string[] {
  return enabledTools(env.ENABLED_TOOLS).map((tool) => tool.name);
}

/**
 * The browser rules of /mcp and /v1 for the landing page and its forms
 * (src/http/origin-guard.ts). Browsers send Origin with every POST, so a
 * form on another site cannot spend a visitor's answer_query quota
 * (cross-site request forgery); following a link here from anywhere sends
 * no Origin and still works.
 */
function landingOriginGuard(): MiddlewareHandler<{ Bindings: Env }> {
  return browserOriginGuard(
    (origin, c) =>
      `a page on ${origin.slice(0, 100)} may not use this server's forms; open ${new URL(c.req.url).origin} itself, or ask its operator to add that origin to ALLOWED_ORIGINS`,
  );
}

/** PERMISSION_DENIED for a panel whose tool ENABLED_TOOLS leaves out, as the REST facade refuses its method. */
function requireTool(tool: string): MiddlewareHandler<{ Bindings: Env }> {
  return requireToolFor(tool, "panel");
}

/** `value`, once the panel part it is for (its tool) is known to be on. */
function requireEnabled<T>(env: Env, tool: string, value: T): T {
  if (!toolIsEnabled(env, tool)) throw toolTurnedOff(tool, "panel");
  return value;
}

/** The caller the panel route already identified. */
function known(c: Context<{ Bindings: Env }>): Outcome<Caller> {
  return { ok: true, value: c.get("caller") };
}

/** The caller of a request that does not require one (the landing page itself): a refused key is reported, not answered with 401. */
async function callerOf(c: Context<{ Bindings: Env }>): Promise<Outcome<Caller>> {
  try {
    return { ok: true, value: await identifyCaller(c.env, c.req.raw) };
  } catch (thrown) {
    return { ok: false, message: toAlmanacError(thrown).message };
  }
}

async function renderPage(
  c: Context<{ Bindings: Env }>,
  options: LandingOptions,
  view: { panels: PanelStates; caller: Outcome<Caller>; status?: ContentfulStatusCode; headers?: Record<string, string> },
): Promise<Response> {
  const origin = new URL(c.req.url).origin;
  // A panel route's viewer (src/http/viewer.ts) is audited by its middleware; the page alone audits its own overview here.
  const routeViewer: Viewer | undefined = c.get("viewer");
  const viewer = routeViewer ?? viewerWith(view.caller.ok ? callerAudiences(view.caller.value) : []);
  const overview = await loadOverview(c.env, view.caller, viewer);
  if (!routeViewer && view.caller.ok) {
    await recordAccess(c.env.DB, { keyId: view.caller.value.kind === "key" ? view.caller.value.keyId : null }, "web", "landing page", viewer);
  }
  const page = (
    <LandingPage
      endpoints={{ origin, mcpUrl: `${origin}${options.mcpPath}`, restUrl: options.restBasePath && `${origin}${options.restBasePath}` }}
      overview={overview}
      panels={view.panels}
      tools={enabledNames(c.env)}
    />
  );
  return c.html(`<!doctype html>\n${await page.toString()}`, view.status ?? 200, { ...(await pageHeaders()), ...view.headers });
}

/** The panel states that show `error` in the panel the request was for, beside what was typed. */
function panelsWithError(request: TryRequest, error: PanelError): PanelStates {
  switch (request.panel) {
    case "search":
      return { search: { input: request.input, error } };
    case "ask":
      return { ask: { input: request.input, error } };
    case "library":
      return { library: { input: request.input, error } };
    case "allowance":
      return {};
  }
}

/**
 * The site's one answer to anything a route or middleware throws: the page
 * again, with the message in the panel that was used and the error's status
 * and headers (429 with Retry-After and RateLimit-*, 401, 400). A refusal
 * before a panel was read (a foreign Host or Origin, a disabled panel, an
 * oversized form) gets a short page that shows nothing of the server's data.
 */
function pageForError(options: LandingOptions): ErrorHandler<{ Bindings: Env }> {
  return errorHandlerAnswering(async (error, c) => {
    const status = HTTP_STATUS[error.status];
    const request = c.get("tryRequest");
    if (!request) {
      return c.html(`<!doctype html>\n${await (<ErrorPage status={status} message={error.message} />).toString()}`, status, { ...(await pageHeaders()), ...error.headers });
    }
    const caller: Outcome<Caller> = c.get("caller") ? known(c) : error.status === "UNAUTHENTICATED" ? { ok: false, message: error.message } : await callerOf(c);
    return renderPage(c, options, { panels: panelsWithError(request, { status: error.status, message: error.message }), caller, status, headers: error.headers });
  });
}
