// One /mcp URL, both protocol eras (MCP 2026-07-28, "Versioning and
// Compatibility"): the SDK's own classifier decides which era a request
// belongs to, so routing can never disagree with the modern handler.
import { isLegacyRequest } from "@modelcontextprotocol/server";
import type { Handler } from "hono";
import type { Caller } from "../auth/caller.ts";
import { mcpCaller } from "./methods.ts";
import { withBoundedErrors } from "./bounded-errors.ts";
import { answerWithin } from "./deadline.ts";
import { serveLegacySession } from "./legacy-session.ts";
import { serveStateless } from "./stateless.ts";

/**
 * The /mcp route, behind the guards, keys and quota: serves the request in
 * its era, within the deadline, and leaves `mcpAnswered` (which requests got
 * a real answer) for the quota gate's refunds.
 *
 * @example mcp.all("/mcp", mcpEndpoint());
 */
export function mcpEndpoint(): Handler<{ Bindings: Env }> {
  return async (c) => {
    const message = c.get("jsonRpcMessage");
    // hono types its execution context more narrowly than workers-types; at run time it is the Worker's own.
    const served = serveMcp(c.req.raw, c.env, c.executionCtx as ExecutionContext, c.get("caller"), message?.parsed);
    const { response, answered } = await answerWithin(served, message?.requestIds ?? []);
    c.set("mcpAnswered", answered);
    return response;
  };
}

/**
 * Serves a request for /mcp, after the guards, keys and quota in front of it:
 * 2025-era traffic (an `initialize`, a request in a session, GET and DELETE)
 * goes to its session's Durable Object; everything else is 2026-07-28 and is
 * answered here in the Worker, with no Durable Object on its path.
 * `parsedBody` is the POSTed JSON when the guards have already parsed it;
 * `caller` is who authenticated, whose sessions alone a request may use.
 */
async function serveMcp(request: Request, env: Env, ctx: ExecutionContext, caller: Caller, parsedBody?: unknown): Promise<Response> {
  const served = withoutQuery(request);
  if (await isLegacyRequest(served, parsedBody)) return withBoundedErrors(await serveLegacySession(served, env, ctx, caller));
  return withBoundedErrors(await serveStateless(served, env, mcpCaller(caller)));
}

/**
 * The request without its query string, which has done its work (a `?key=`
 * was read by then): a query parameter must never reach the agents library,
 * which would let `?__agents_transport=` switch the transport or a long
 * query overflow the session's stored connection state.
 */
function withoutQuery(request: Request): Request {
  const url = new URL(request.url);
  if (url.search === "") return request;
  url.search = "";
  return new Request(url, request);
}

