import { Hono } from "hono";
import { authenticateCaller } from "./auth/authenticate.ts";
import { readOnce } from "./d1/sessions.ts";
import { countDocuments } from "./documents/store.ts";
import { errorHandler } from "./http/error-handler.ts";
import { AlmanacMcp, serveMcp } from "./mcp/agent.ts";
import { readJsonRpcMessage } from "./mcp/json-rpc-message.ts";
import { originGuard } from "./mcp/origin-guard.ts";
import { landingPage } from "./landing-page.ts";
import { serverTiming } from "./observability/server-timing.ts";
import { mcpAnswerQuota } from "./quota/answer-quota.ts";
import { QuotaCounter } from "./quota/quota-counter.ts";
import { enabledTools } from "./tools/index.ts";

export { AlmanacMcp, QuotaCounter };

const app = new Hono<{ Bindings: Env }>();
app.onError(errorHandler);
app.use(serverTiming());

app.get("/healthz", async (c) => c.json({ status: "ok", documents: await readOnce(c.env.DB, countDocuments) }));
app.get("/", async (c) =>
  c.html(landingPage(new URL(c.req.url).origin, await readOnce(c.env.DB, countDocuments), enabledTools(c.env.ENABLED_TOOLS))),
);
app.use("/mcp", originGuard(), readJsonRpcMessage());
app.use("/mcp", authenticateCaller(), mcpAnswerQuota());
app.all("/mcp", (c) => serveMcp(c.req.raw, c.env, c.executionCtx));

export default app;
