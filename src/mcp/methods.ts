// What Almanac's MCP server answers, method by method, with no protocol era
// in sight. The 2026-07-28 handler (stateless.ts) and the 2025-era session
// (legacy-session.ts) install this one table on their SDK's Server, so both
// eras list and run the same tools and resources, with the same errors.
import { quoted } from "../text/quote.ts";
import { z } from "zod";
import { ReadConsistency } from "../d1/sessions.ts";
import { type AlmanacError, toAlmanacError } from "../errors.ts";
import { checkedArguments } from "../http/arguments.ts";
import { logInternalFault } from "../http/internal-faults.ts";
import type { AnyToolDefinition } from "../tools/define.ts";
import {
  DOCUMENT_TEMPLATE,
  completeDocumentPath,
  listDocumentResources,
  readDocumentResource,
} from "../tools/document-resources.ts";
import { SERVER_INSTRUCTIONS, enabledTools } from "../tools/index.ts";
import { conformanceTool } from "./conformance-tool.ts";
import { recordAccess } from "../documents/access/audit.ts";
import { type Caller, callerAudiences } from "../auth/caller.ts";
import { type Viewer, viewerWith } from "../documents/access/visibility.ts";

/** Name and version reported by `initialize` and `server/discover`. */
export const SERVER_INFO = { name: "almanac", version: "0.1.0" } as const;

export { SERVER_INSTRUCTIONS };

/**
 * What the server really honours, in both eras: tools, resources (no
 * subscriptions: a corpus changes by ingestion, not live) and completion
 * of the document template. The lists never change while a server runs.
 */
export const SERVER_CAPABILITIES = {
  tools: { listChanged: false },
  resources: { listChanged: false, subscribe: false },
  completions: {},
} as const;

/** JSON-RPC's code for invalid method parameters, which MCP uses for unknown tools and resources too. */
const INVALID_PARAMS = -32602;

/** JSON-RPC's code for a fault of the server itself. */
const INTERNAL_ERROR = -32603;

/** A JSON-RPC error a method answers with; each era's glue turns it into its SDK's error class. */
class McpMethodError extends Error {
  readonly code: number;
  readonly data?: Record<string, unknown>;

  constructor(code: number, message: string, data?: Record<string, unknown>) {
    super(message);
    this.name = "McpMethodError";
    this.code = code;
    this.data = data;
  }
}

/** A JSON Schema of an object, as tools/list carries it. */
type ObjectSchema = { type: "object"; [keyword: string]: unknown };

/** A tool as tools/list describes it. (Type aliases, not interfaces: the SDKs' result types have index signatures.) */
type ListedTool = {
  name: string;
  title: string;
  description: string;
  inputSchema: ObjectSchema;
  outputSchema?: ObjectSchema;
  annotations: AnyToolDefinition["annotations"];
};

/** A tool result: Markdown text, the structured copy, or an error whose text starts with its status. */
type ToolResult = {
  content: { type: "text"; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

/**
 * Who calls, as the methods need it: the key id for the audit log and the
 * audiences that decide which data sources it reads (src/documents/access/visibility.ts).
 */
export interface McpCaller {
  keyId: string | null;
  audiences: readonly string[];
}

/** A caller without a key: public data sources only. */
export const ANONYMOUS: McpCaller = { keyId: null, audiences: [] };

/** The authenticated caller as the methods need it. */
export function mcpCaller(caller: Caller): McpCaller {
  return { keyId: caller.kind === "key" ? caller.keyId : null, audiences: callerAudiences(caller) };
}

/** The methods Almanac serves beyond the SDK's own (initialize, ping, server/discover). */
interface McpMethods {
  "tools/list"(): Promise<{ tools: ListedTool[] }>;
  "tools/call"(params: { name: string; arguments?: Record<string, unknown> }): Promise<ToolResult>;
  "resources/list"(params?: { cursor?: string }): ReturnType<typeof listDocumentResources>;
  "resources/templates/list"(): Promise<{ resourceTemplates: (typeof DOCUMENT_TEMPLATE)[] }>;
  "resources/read"(params: { uri: string }): Promise<{ contents: Awaited<ReturnType<typeof readDocumentResource>>[] }>;
  "completion/complete"(params: {
    ref: { type: string; uri?: string; name?: string };
    argument: { name: string; value: string };
  }): Promise<{ completion: { values: string[]; total?: number; hasMore: boolean } }>;
}

/**
 * Almanac's methods over one deployment's bindings and configuration
 * (ENABLED_TOOLS; CONFORMANCE_TOOL adds the suite's error tool). `reads` is
 * where tool calls start their D1 read sessions: a 2025-era session passes
 * its own, so its later calls never see an older corpus than earlier ones
 * (the bookmark carries); a 2026-07-28 request, having no session, a fresh one.
 * `caller` says who calls, asked at each call: its audiences decide what the
 * tools and resources read, and what they return of restricted sources is audited.
 *
 * @example const methods = almanacMethods(env); await methods["tools/list"]()
 */
export function almanacMethods(env: Env, reads: ReadConsistency = new ReadConsistency(), caller: () => McpCaller = () => ANONYMOUS): McpMethods {
  const tools = servedTools(env);
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  /** Runs one method's reads as the caller sees the corpus, and audits what they returned of restricted sources. */
  const asCaller = async <T>(method: string, work: (viewer: Viewer) => Promise<T>): Promise<T> => {
    const who = caller();
    const viewer = viewerWith(who.audiences);
    const result = await work(viewer);
    await recordAccess(env.DB, who, "mcp", method, viewer);
    return result;
  };
  return {
    "tools/list": async () => ({ tools: tools.map(listedTool) }),
    "tools/call": async ({ name, arguments: args }) => {
      const tool = byName.get(name);
      if (!tool) {
        throw new McpMethodError(
          INVALID_PARAMS,
          `NOT_FOUND: no tool named "${quoted(name)}" on this server; its tools are ${tools.map((each) => each.name).join(", ")} (see tools/list)`,
          { status: "NOT_FOUND", name: quoted(name) },
        );
      }
      return callTool(env, tool, args, reads, caller());
    },
    "resources/list": async (params) => asCaller("resources/list", (viewer) => listDocumentResources(env.DB, params?.cursor, viewer)).catch(asInvalidParams),
    "resources/templates/list": async () => ({ resourceTemplates: [DOCUMENT_TEMPLATE] }),
    "resources/read": async ({ uri }) => ({ contents: [await asCaller("resources/read", (viewer) => readDocumentResource(env.DB, uri, viewer)).catch(asInvalidParams)] }),
    "completion/complete": async ({ ref, argument }) => {
      if (ref.type !== "ref/resource" || ref.uri !== DOCUMENT_TEMPLATE.uriTemplate || argument.name !== "path") {
        // Nothing else here takes arguments: no prompts, and the template has one variable.
        return { completion: { values: [], hasMore: false } };
      }
      const { values, hasMore } = await asCaller("completion/complete", (viewer) => completeDocumentPath(env.DB, argument.value, viewer));
      return { completion: hasMore ? { values, hasMore } : { values, total: values.length, hasMore } };
    },
  };
}

function servedTools(env: Env): readonly AnyToolDefinition[] {
  const tools = enabledTools(env.ENABLED_TOOLS);
  return env.CONFORMANCE_TOOL === "on" ? [...tools, conformanceTool] : tools;
}

/** JSON Schemas per tool, converted once per isolate (the definitions never change). */
const listings = new WeakMap<AnyToolDefinition, ListedTool>();

/**
 * The tool as tools/list shows it. Schemas are JSON Schema 2020-12, MCP's
 * default dialect; the input schema is closed (additionalProperties: false)
 * because calls with unknown arguments are refused, so a misspelt `filters`
 * is never silently ignored.
 */
function listedTool(tool: AnyToolDefinition): ListedTool {
  let listing = listings.get(tool);
  if (!listing) {
    const outputSchema = Object.keys(tool.outputSchema).length > 0 ? jsonSchema(z.object(tool.outputSchema), "output") : undefined;
    listing = {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: jsonSchema(z.strictObject(tool.inputSchema), "input"),
      ...(outputSchema ? { outputSchema } : {}),
      annotations: tool.annotations,
    };
    listings.set(tool, listing);
  }
  return listing;
}

function jsonSchema(schema: z.ZodObject, io: "input" | "output"): ObjectSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: "draft-2020-12", io });
  return { ...rest, type: "object" };
}

/**
 * Runs a tool: arguments checked against its schema (errors read like every
 * other Almanac error, INVALID_ARGUMENT naming the field), then its handler.
 * A thrown AlmanacError becomes an `isError` result whose text starts with
 * its status; unexpected errors are logged, never shown.
 */
async function callTool(env: Env, tool: AnyToolDefinition, args: Record<string, unknown> | undefined, reads: ReadConsistency, caller: McpCaller): Promise<ToolResult> {
  try {
    const viewer = viewerWith(caller.audiences);
    const output = await tool.run(env, checkedArguments(z.strictObject(tool.inputSchema), args ?? {}), { reads, viewer });
    // Logged before the result goes out: a restricted read that cannot be audited fails instead.
    await recordAccess(env.DB, caller, "mcp", tool.name, viewer);
    return { content: [{ type: "text", text: output.text }], structuredContent: output.structured as Record<string, unknown> };
  } catch (thrown) {
    const error = toAlmanacError(thrown);
    logInternalFault(tool.name, error);
    return toolError(error);
  }
}

function toolError(error: AlmanacError): ToolResult {
  return { isError: true, content: [{ type: "text", text: error.toText() }] };
}

/** A domain refusal of a method's parameters (a bad cursor, an unknown uri) as JSON-RPC -32602, with its data. */
function asInvalidParams(thrown: unknown): never {
  const error = toAlmanacError(thrown);
  if (error.status === "INTERNAL") {
    logInternalFault("an MCP resource method", error);
    throw new McpMethodError(INTERNAL_ERROR, error.toText(), { status: error.status });
  }
  throw new McpMethodError(INVALID_PARAMS, error.toText(), { status: error.status, ...error.data });
}
