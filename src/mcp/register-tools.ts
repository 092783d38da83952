import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { toAlmanacError } from "../errors.ts";
import type { AnyToolDefinition, ToolDefinition } from "../tools/define.ts";

/**
 * Registers a transport-free tool on an MCP server. This wrapper is the one
 * place where a thrown AlmanacError becomes an `isError` result whose text
 * starts with its status; unexpected errors are logged, never shown.
 */
export function registerTool<Input extends z.ZodRawShape, Output extends z.ZodRawShape>(
  server: McpServer,
  env: Env,
  tool: ToolDefinition<Input, Output>,
): void {
  server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema,
      annotations: tool.annotations,
    },
    // The SDK's callback type is generic over the shape; the definition's own types already checked it.
    (async (args: z.infer<z.ZodObject<Input>>): Promise<CallToolResult> => {
      try {
        const output = await tool.run(env, args);
        return {
          content: [{ type: "text", text: output.text }],
          structuredContent: output.structured as Record<string, unknown>,
        };
      } catch (thrown) {
        const error = toAlmanacError(thrown);
        if (error.status === "INTERNAL") console.error(`${tool.name} failed`, error.detail);
        return { isError: true, content: [{ type: "text", text: error.toText() }] };
      }
    }) as Parameters<McpServer["registerTool"]>[2],
  );
}

interface SdkToolValidation {
  validateToolInput(tool: unknown, args: unknown, toolName: string): Promise<unknown>;
}

/**
 * Makes argument errors read like every other Almanac error. The SDK throws
 * "MCP error -32602: Input validation error: …" for a schema mismatch, while
 * our contract is text that starts with INVALID_ARGUMENT and names the field;
 * the SDK offers no hook, so its one validation method is replaced. Unknown
 * arguments are refused too (a misspelt `filters` must not be ignored).
 */
export function reportArgumentErrorsWithStatus(server: McpServer, tools: readonly AnyToolDefinition[]): void {
  const schemas = new Map(tools.map((tool) => [tool.name, z.strictObject(tool.inputSchema)]));
  const sdk = server as unknown as SdkToolValidation;
  if (typeof sdk.validateToolInput !== "function") {
    // Fails every session loudly (and every test) rather than silently losing the INVALID_ARGUMENT contract.
    throw new Error("@modelcontextprotocol/sdk no longer has McpServer.validateToolInput; update src/mcp/register-tools.ts for the new SDK");
  }
  const validateWithSdk = sdk.validateToolInput.bind(server);
  sdk.validateToolInput = async (tool, args, toolName) => {
    const schema = schemas.get(toolName);
    if (!schema) return validateWithSdk(tool, args, toolName);
    const parsed = await schema.safeParseAsync(args ?? {});
    if (parsed.success) return parsed.data;
    const problems = parsed.error.issues.map((issue) => {
      if (issue.code === "unrecognized_keys") return `unknown argument ${issue.keys.map((key) => `"${key}"`).join(", ")}; see the tool's input schema`;
      const field = issue.path.map(String).join(".");
      return field && !issue.message.startsWith(field.split(".")[0] ?? "") ? `${field}: ${issue.message}` : issue.message;
    });
    throw new Error(`INVALID_ARGUMENT: ${problems.join("; ")}`);
  };
}
