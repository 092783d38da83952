import { Hono } from "hono";
import { authenticateCaller } from "./auth/authenticate.ts";
import { readOnce } from "./d1/sessions.ts";
import { countDocuments } from "./documents/store.ts";
import { errorHandler } from "./http/error-handler.ts";
import { notFound } from "./http/not-found.ts";
import { AlmanacMcp } from "./mcp/legacy-session.ts";
import { readJsonRpcMessage } from "./mcp/json-rpc-message.ts";
import { originGuard } from "./mcp/origin-guard.ts";
import { checkJsonRpcMessages, checkMcpRequest } from "./mcp/request-checks.ts";
import { mcpEndpoint } from "./mcp/serve.ts";
import { serverTiming } from "./observability/server-timing.ts";
import { mcpAnswerQuota } from "./quota/answer-quota.ts";
import { QuotaCounter } from "./quota/quota-counter.ts";
import { restApi } from "./rest/routes.ts";
import { llmsTxtSite } from "./web/llms-txt.ts";
import { landingSite } from "./web/routes.tsx";

export { AlmanacMcp, QuotaCounter };

const app = new Hono<{ Bindings: Env }>();
app.onError(errorHandler);
app.notFound(notFound);
app.use(serverTiming());

app.get("/healthz", async (c) => c.json({ status: "ok", documents: await readOnce(c.env.DB, countDocuments) }));
app.use("/mcp", originGuard(), checkMcpRequest(), readJsonRpcMessage(), checkJsonRpcMessages());
app.use("/mcp", authenticateCaller(), mcpAnswerQuota());
app.all("/mcp", mcpEndpoint());
app.route("/", restApi());
// The landing page and its "Try it" panels; restBasePath is where the REST facade above is mounted.
app.route("/", landingSite({ mcpPath: "/mcp", restBasePath: "/v1" }));
// The corpus for other tools in llms.txt form, each page's Markdown at /documents/<host>/<path>.md.
app.route("/", llmsTxtSite());

export default app;
