import { Hono } from "hono";
import { authenticateCaller } from "./auth/authenticate.ts";
import { countDocuments } from "./documents/store.ts";
import { AlmanacMcp } from "./mcp/agent.ts";
import { originGuard } from "./mcp/origin-guard.ts";
import { landingPage } from "./landing-page.ts";
import { mcpAnswerQuota } from "./quota/answer-quota.ts";
import { QuotaCounter } from "./quota/quota-counter.ts";

export { AlmanacMcp, QuotaCounter };

const mcp = AlmanacMcp.serve("/mcp", { binding: "MCP_OBJECT" });

const app = new Hono<{ Bindings: Env }>();

app.get("/healthz", async (c) => c.json({ status: "ok", documents: await countDocuments(c.env.DB) }));
app.get("/", async (c) => c.html(landingPage(new URL(c.req.url).origin, await countDocuments(c.env.DB))));
app.use("/mcp", originGuard());
app.use("/mcp", authenticateCaller({ format: "json-rpc" }), mcpAnswerQuota());
// hono types its context more narrowly than workers-types; at run time it is the Worker's own.
app.all("/mcp", (c) => mcp.fetch(c.req.raw, c.env, c.executionCtx as ExecutionContext));

export default app;
