import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import { ReadConsistency } from "../d1/sessions.ts";
import type { AnswerWeights } from "../documents/answer/answer-query.ts";
import { timed } from "../observability/timings.ts";
import type { Viewer } from "../documents/access/visibility.ts";

/** What a tool hands back: the structured result and its Markdown rendering. */
export interface ToolOutput<Structured> {
  structured: Structured;
  text: string;
}

/**
 * What a transport may hand a tool beside its arguments. `reads` is where the
 * tool's D1 reads start (sessions.ts): a 2025-era MCP session keeps one for
 * all its calls, so a later call never sees an older corpus than an earlier
 * one; without it each call starts a session of its own.
 */
export interface ToolContext {
  reads: ReadConsistency;
  /** The weights search and answers use; absent, the product's defaults. Only the evaluation (eval/tune.ts) passes others. */
  weights?: AnswerWeights;
  /** Who calls (src/documents/access/visibility.ts): the tool reads only the data sources it sees; absent, the public ones. */
  viewer?: Viewer;
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
  run(env: Env, args: z.infer<z.ZodObject<Input>>, context?: ToolContext): Promise<ToolOutput<z.infer<z.ZodObject<Output>>>>;
}

/** Every Almanac tool only reads a closed corpus (SPEC 2.5). */
export const READ_ONLY_ANNOTATIONS = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;

/**
 * A tool as every transport calls it: its handler timed as `tool`
 * (observability/timings.ts) and given a read context of its own when the
 * caller brings none. Inference checks each tool module's argument types.
 */
export function defineTool<Input extends z.ZodRawShape, Output extends z.ZodRawShape>(
  definition: ToolDefinition<Input, Output>,
): ToolDefinition<Input, Output> {
  const { run } = definition;
  return { ...definition, run: (env, args, context = { reads: new ReadConsistency() }) => timed("tool", () => run(env, args, context)) };
}

/** Any tool, for lists of tools: `run` is a method, so its argument type is checked per tool, not here. */
export type AnyToolDefinition = ToolDefinition<z.ZodRawShape, z.ZodRawShape>;

/** The tool's read context: the one its caller keeps, or, run by itself, a fresh one. */
export function reads(context: ToolContext | undefined): ReadConsistency {
  return context?.reads ?? new ReadConsistency();
}
