import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";

/** What a tool hands back: the structured result and its Markdown rendering. */
export interface ToolOutput<Structured> {
  structured: Structured;
  text: string;
}

/**
 * One tool, transport-free: its schemas, the words the model reads, and a
 * handler that calls the domain and formats. The MCP layer registers these;
 * nothing here knows about McpAgent or HTTP.
 */
export interface ToolDefinition<Input extends z.ZodRawShape, Output extends z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  inputSchema: Input;
  outputSchema: Output;
  annotations: ToolAnnotations;
  run(env: Env, args: z.infer<z.ZodObject<Input>>): Promise<ToolOutput<z.infer<z.ZodObject<Output>>>>;
}

/** Every Almanac tool only reads a closed corpus (SPEC 2.5). */
export const READ_ONLY_ANNOTATIONS = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;

/** Identity with inference, so each tool module gets its argument types checked. */
export function defineTool<Input extends z.ZodRawShape, Output extends z.ZodRawShape>(
  definition: ToolDefinition<Input, Output>,
): ToolDefinition<Input, Output> {
  return definition;
}

/** Any tool, for lists of tools: `run` is a method, so its argument type is checked per tool, not here. */
export type AnyToolDefinition = ToolDefinition<z.ZodRawShape, z.ZodRawShape>;
