import { Hono } from "hono";
import { readOnce } from "./d1/sessions.ts";
import { countDocuments } from "./documents/read/stored-documents.ts";
import { errorHandler } from "./http/error-handler.ts";
import { notFound } from "./http/not-found.ts";
import { readerCaller, viewing } from "./http/viewer.ts";
import { auditRetentionDays, pruneAuditLog } from "./documents/access/audit.ts";
import { AlmanacMcp } from "./mcp/legacy-session.ts";
import { mcpApi } from "./mcp/routes.ts";
import { SessionRegistry } from "./mcp/session-registry.ts";
import { serverTiming } from "./observability/server-timing.ts";
import { QuotaCounter } from "./quota/quota-counter.ts";
import { restApi } from "./rest/routes.ts";
import { llmsTxtSite } from "./web/llms-txt.ts";
import { landingSite } from "./web/routes.tsx";
import { sourcesSite } from "./web/sources.ts";
import { sourceHooksSite } from "./web/source-hooks.ts";
import { refreshDueSources, refreshesAll } from "./sources/cron.ts";
import { SourceRefresh } from "./sources/refresh-workflow.ts";

export { AlmanacMcp, QuotaCounter, SessionRegistry, SourceRefresh };

// Each transport is a sub-app with its own onError (JSON-RPC on /mcp, Google's error body on /v1, an HTML page on /);
// the app's own answers /healthz and paths nothing serves.
const app = new Hono<{ Bindings: Env }>();
app.onError(errorHandler);
app.notFound(notFound);
app.use(serverTiming());

// The page count a caller sees: public sources, and with a key its audiences' (src/documents/access/visibility.ts).
app.get("/healthz", readerCaller(), viewing("healthz", "healthz"), async (c) =>
  c.json({ status: "ok", documents: await readOnce(c.env.DB, (db) => countDocuments(db, c.get("viewer"))) }, 200, { "Cache-Control": "no-store" }),
);
// A source's origin says it changed: POST /sources/<name>/hooks/<provider> (corpus/docs/keeping-sources-fresh.md).
app.route("/", sourceHooksSite());
app.route("/", mcpApi());
app.route("/", restApi());
// The landing page and its "Try it" panels; restBasePath is where the REST facade above is mounted.
app.route("/", landingSite({ mcpPath: "/mcp", restBasePath: "/v1" }));
// The corpus for other tools in llms.txt form, each page's Markdown at /documents/<host>/<path>.md.
app.route("/", llmsTxtSite());
// Read-only freshness of the sources `npm run sources` keeps.
app.route("/", sourcesSite());

export { app };

export default {
  fetch: app.fetch,
  // The Cron Trigger: one refresh Workflow per due source (src/sources/cron.ts).
  async scheduled(controller, env, ctx) {
    ctx.waitUntil(
      refreshDueSources(env.DB, env.SOURCE_REFRESH, controller.scheduledTime, { all: refreshesAll(controller.cron) }).then((report) => {
        if (report.started.length + report.released.length > 0) console.log(`sources: ${JSON.stringify(report)}`);
      }),
    );
    // The audit log keeps AUDIT_RETENTION_DAYS of rows (src/documents/access/audit.ts); one indexed range delete per tick.
    ctx.waitUntil(pruneAuditLog(env.DB, auditRetentionDays(env), new Date(controller.scheduledTime)).then(() => undefined));
  },
} satisfies ExportedHandler<Env>;
