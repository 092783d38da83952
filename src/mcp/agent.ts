import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { McpAgent } from "agents/mcp";
import { SERVER_INSTRUCTIONS, enabledTools } from "../tools/index.ts";
import { registerConformanceTool } from "./conformance-tool.ts";
import { registerTool, reportArgumentErrorsWithStatus } from "./register-tools.ts";

/** Name and version reported in the MCP initialize result. */
export const SERVER_INFO = { name: "almanac", version: "0.1.0" } as const;

/** One MCP session: a Durable Object holding an MCP server with Almanac's tools. */
export class AlmanacMcp extends McpAgent<Env> {
  server = new McpServer(SERVER_INFO, { instructions: SERVER_INSTRUCTIONS });

  async init(): Promise<void> {
    const tools = enabledTools(this.env.ENABLED_TOOLS);
    reportArgumentErrorsWithStatus(this.server, tools);
    for (const tool of tools) registerTool(this.server, this.env, tool);
    if (this.env.CONFORMANCE_TOOL === "on") registerConformanceTool(this.server);
  }
}

const streamableHttp = AlmanacMcp.serve("/mcp", { binding: "MCP_OBJECT" });

/**
 * Hands a request for /mcp to its session's Durable Object (Streamable HTTP;
 * unknown session ids get 404 as the MCP spec says).
 */
export function serveMcp(request: Request, env: Env, ctx: Pick<ExecutionContext, "waitUntil" | "passThroughOnException">): Promise<Response> {
  // hono types its execution context more narrowly than workers-types; at run time it is the Worker's own.
  return streamableHttp.fetch(request, env, ctx as ExecutionContext);
}
