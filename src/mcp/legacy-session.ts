// 2025-era MCP (the initialize handshake, Mcp-Session-Id): one session per
// Durable Object, an McpAgent from `agents`, which runs SDK v1. The glue
// here installs Almanac's era-free methods (methods.ts) on a v1 Server.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { McpAgent } from "agents/mcp";
import type { Caller } from "../auth/caller.ts";
import { ReadConsistency } from "../d1/sessions.ts";
import { inCallersSession } from "./session-binding.ts";
import { ANONYMOUS, type McpCaller, SERVER_CAPABILITIES, SERVER_INFO, SERVER_INSTRUCTIONS, almanacMethods, mcpCaller } from "./methods.ts";

/** One 2025-era MCP session: a Durable Object holding a v1 Server with Almanac's methods. */
/**
 * What a session's object is started with (agents' props): the caller that
 * opened it, whose audiences its tools and resources read with. Only that
 * caller can use the session (session-binding.ts), so no other caller's
 * request ever runs with them.
 */
type SessionProps = McpCaller & Record<string, unknown>;

export class AlmanacMcp extends McpAgent<Env, unknown, SessionProps> {
  server = new Server(SERVER_INFO, { capabilities: SERVER_CAPABILITIES, instructions: SERVER_INSTRUCTIONS });
  /** The session's D1 read bookmark, carried from call to call (in memory: an evicted object starts again from any replica). */
  private readonly reads = new ReadConsistency();

  async init(): Promise<void> {
    const methods = almanacMethods(this.env, this.reads, () => this.opener());
    // The SDK has checked each request against its schema; a thrown McpMethodError keeps its code and data.
    this.server.setRequestHandler(ListToolsRequestSchema, () => methods["tools/list"]());
    this.server.setRequestHandler(CallToolRequestSchema, (request) => methods["tools/call"](request.params));
    this.server.setRequestHandler(ListResourcesRequestSchema, (request) => methods["resources/list"](request.params));
    this.server.setRequestHandler(ListResourceTemplatesRequestSchema, () => methods["resources/templates/list"]());
    this.server.setRequestHandler(ReadResourceRequestSchema, (request) => methods["resources/read"](request.params));
    this.server.setRequestHandler(CompleteRequestSchema, (request) => methods["completion/complete"](request.params));
  }

  /** The caller that opened the session; a session started without one reads as an anonymous caller (public sources only). */
  private opener(): McpCaller {
    const props = this.props;
    return props && Array.isArray(props.audiences) ? { keyId: typeof props.keyId === "string" ? props.keyId : null, audiences: props.audiences } : ANONYMOUS;
  }

  /**
   * Ends the session as a DELETE does (the caller's SessionRegistry calls
   * this when it has been idle too long): from now on it is unknown (404),
   * and agents deletes its storage and alarms in its next alarm.
   */
  async endSession(): Promise<void> {
    if (await this.getInitializeRequest()) await this._cf_terminateSession();
  }
}

const streamableHttp = AlmanacMcp.serve("/mcp", { binding: "MCP_OBJECT" });

/**
 * Hands a 2025-era request for /mcp to its session's Durable Object
 * (Streamable HTTP; unknown session ids get 404 as the MCP spec says), if
 * the session is the caller's own (see session-binding.ts).
 */
export function serveLegacySession(request: Request, env: Env, ctx: ExecutionContext, caller: Caller): Promise<Response> {
  const props: SessionProps = { ...mcpCaller(caller) };
  return inCallersSession(request, env, caller, (forwarded) => streamableHttp.fetch(forwarded, env, withProps(ctx, props)));
}

/** The execution context with `props`, which agents hands the session's object when it starts (McpAgent.onStart). */
function withProps(ctx: ExecutionContext, props: SessionProps): ExecutionContext<SessionProps> {
  return new Proxy(ctx, {
    get(target, key) {
      if (key === "props") return props;
      const value: unknown = Reflect.get(target, key);
      // The runtime's methods check their receiver: called on the proxy they would throw.
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as ExecutionContext<SessionProps>;
}
