import { Hono } from "hono";
import { authenticateCaller } from "./auth/authenticate.ts";
import { countDocuments } from "./documents/store.ts";
import { errorHandler } from "./http/error-handler.ts";
import { notFound } from "./http/not-found.ts";
import { AlmanacMcp, serveMcp } from "./mcp/agent.ts";
import { readJsonRpcMessage } from "./mcp/json-rpc-message.ts";
import { originGuard } from "./mcp/origin-guard.ts";
import { landingPage } from "./landing-page.ts";
import { mcpAnswerQuota } from "./quota/answer-quota.ts";
import { QuotaCounter } from "./quota/quota-counter.ts";
import { restApi } from "./rest/routes.ts";
import { enabledTools } from "./tools/index.ts";

export { AlmanacMcp, QuotaCounter };

const app = new Hono<{ Bindings: Env }>();
app.onError(errorHandler);
app.notFound(notFound);

app.get("/healthz", async (c) => c.json({ status: "ok", documents: await countDocuments(c.env.DB) }));
app.get("/", async (c) =>
  c.html(landingPage(new URL(c.req.url).origin, await countDocuments(c.env.DB), enabledTools(c.env.ENABLED_TOOLS))),
);
app.use("/mcp", originGuard(), readJsonRpcMessage());
app.use("/mcp", authenticateCaller(), mcpAnswerQuota());
app.all("/mcp", (c) => serveMcp(c.req.raw, c.env, c.executionCtx));
app.route("/", restApi());

export default app;
