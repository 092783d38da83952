// An MCP SDK client connected to this Worker inside workerd, through its real
// fetch handler (hono → origin guard → McpAgent Durable Object).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { exports } from "cloudflare:workers";

/** Connects a client that validates structured results against each tool's outputSchema. */
export async function connectClient(headers: Record<string, string> = {}): Promise<Client> {
  // The default validator compiles schemas with `new Function`, which workerd forbids.
  const client = new Client({ name: "almanac-test", version: "1.0.0" }, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
  const transport = new StreamableHTTPClientTransport(new URL("http://localhost/mcp"), {
    requestInit: { headers },
    fetch: (url, init) => exports.default.fetch(new Request(url, init)),
  });
  await client.connect(transport);
  return client;
}

/** Calls a tool and returns the result as the SDK delivers it. */
export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The first text content of a tool result. */
export function resultText(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === "text" ? first.text : "";
}
