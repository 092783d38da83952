// The benchmark's MCP client: the SDK's own Client over Streamable HTTP, as
// any MCP client calls Almanac, keeping each response's Server-Timing header.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** One tool call as the client saw it. */
export interface TimedCall {
  /** Round trip at the client, in milliseconds. */
  ms: number;
  /** Server-Timing durations of the call's response, by metric (empty when the server sent none). */
  serverTiming: Map<string, number>;
  result: CallToolResult;
}

/**
 * Reads `name;dur=1.2;desc="…", other;dur=3` into durations by name.
 *
 * @example parseServerTiming('d1;dur=1.5, total;dur=2') // Map { "d1" => 1.5, "total" => 2 }
 */
export function parseServerTiming(header: string | null): Map<string, number> {
  const timings = new Map<string, number>();
  for (const entry of (header ?? "").split(",")) {
    const [name, ...params] = entry.trim().split(";");
    const duration = params.map((param) => /^\s*dur=([\d.]+)/.exec(param)?.[1]).find(Boolean);
    if (name && duration) timings.set(name, Number(duration));
  }
  return timings;
}

/** A connected client of either SDK, as the bench times it. */
export interface TimedClient {
  call(name: string, args: Record<string, unknown>): Promise<TimedCall>;
  close(): Promise<void>;
}

/** What the bench needs of either SDK's Client. */
interface ToolCaller {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * Connects a client through a fetch that keeps the last response's
 * Server-Timing header, and times each of its tool calls.
 */
async function timedClient(connect: (fetchWithTiming: typeof fetch) => Promise<ToolCaller>): Promise<TimedClient> {
  let lastTiming: string | null = null;
  const client = await connect(async (input, init) => {
    const response = await fetch(input, init);
    lastTiming = response.headers.get("server-timing");
    return response;
  });
  return {
    async call(name, args) {
      const started = performance.now();
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      const ms = performance.now() - started;
      if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content).slice(0, 300)}`);
      return { ms, serverTiming: parseServerTiming(lastTiming), result };
    },
    close: () => client.close(),
  };
}

/** A 2025-era MCP session (initialize, Mcp-Session-Id): its tools run in the session's Durable Object. */
export function connectLegacySession(serverUrl: string): Promise<TimedClient> {
  return timedClient(async (fetchWithTiming) => {
    const client = new Client({ name: "almanac-bench", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", serverUrl), { fetch: fetchWithTiming }));
    return client;
  });
}

/**
 * A 2026-07-28 client (SDK v2, pinned): stateless, its tools run in the
 * Worker itself, so the response's Server-Timing carries the tool's own
 * D1 and ranking time.
 */
export async function connectStateless(serverUrl: string): Promise<TimedClient> {
  const { Client: ModernClient, StreamableHTTPClientTransport: ModernTransport } = await import("@modelcontextprotocol/client");
  return timedClient(async (fetchWithTiming) => {
    const client = new ModernClient({ name: "almanac-bench", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await client.connect(new ModernTransport(new URL("/mcp", serverUrl), { fetch: fetchWithTiming }));
    return client;
  });
}
