import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

/**
 * The official MCP conformance suite's `tools-call-error` scenario calls a
 * tool of this exact name and expects an `isError` result. It is registered
 * only when CONFORMANCE_TOOL is "on" (the end-to-end tests set it), never in
 * a normal deployment.
 */
export function registerConformanceTool(server: McpServer): void {
  server.registerTool(
    "test_error_handling",
    { title: "Conformance: error handling", description: "Always fails; exists only for the MCP conformance suite." },
    async () => ({
      isError: true,
      content: [{ type: "text", text: "INTERNAL: this tool always fails, so clients can test how they handle tool errors" }],
    }),
  );
}
