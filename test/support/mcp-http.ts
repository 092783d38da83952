// Raw Streamable HTTP against the Worker's own fetch handler, for tests that
// need the exact HTTP status, headers and body of each POST to /mcp.
import { exports } from "cloudflare:workers";

export const MCP_URL = "https://almanac.test/mcp";

type Headers = Record<string, string>;

const STREAMABLE_HTTP = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };

/** POSTs one JSON-RPC message or a batch to /mcp. */
export function post(body: unknown, headers: Headers = {}, url: string = MCP_URL): Promise<Response> {
  return exports.default.fetch(
    new Request(url, { method: "POST", headers: { ...STREAMABLE_HTTP, ...headers }, body: JSON.stringify(body) }),
  );
}

/** Initializes an MCP session and returns the headers that address it. */
export async function openSession(headers: Headers = {}): Promise<Headers> {
  const response = await post(
    {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "quota-test", version: "1.0.0" } },
    },
    headers,
  );
  if (response.status !== 200) throw new Error(`initialize answered ${response.status}: ${await response.text()}`);
  await response.text();
  const sessionId = response.headers.get("mcp-session-id");
  if (!sessionId) throw new Error("initialize returned no Mcp-Session-Id");
  const session = { ...headers, "Mcp-Session-Id": sessionId, "MCP-Protocol-Version": "2025-06-18" };
  const initialized = await post({ jsonrpc: "2.0", method: "notifications/initialized" }, session);
  await initialized.text();
  return session;
}

/** A `tools/call` request. */
export function toolCall(id: number | string, name: string, args: Record<string, unknown>) {
  return { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } };
}

/** An `answer_query` call. */
export function answerQuery(id: number | string, query = "How is the answer_query quota counted?") {
  return toolCall(id, "answer_query", { query });
}

/** The JSON-RPC messages in a response body, whether it is JSON or an SSE stream. */
export async function messages(response: Response): Promise<Record<string, unknown>[]> {
  const text = await response.text();
  if ((response.headers.get("content-type") ?? "").includes("text/event-stream")) {
    return text
      .split("\n")
      .filter((line) => line.startsWith("data: "))
      .map((line) => JSON.parse(line.slice("data: ".length)) as Record<string, unknown>);
  }
  const body = JSON.parse(text) as Record<string, unknown> | Record<string, unknown>[];
  return Array.isArray(body) ? body : [body];
}
