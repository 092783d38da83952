import type { MiddlewareHandler } from "hono";
import { AlmanacError } from "../errors.ts";
import { type JsonRpcId, RefusalError } from "../http/refusal.ts";
import { type InspectedBody, inspectJsonRpcBody } from "./json-rpc.ts";
import { concatBytes } from "../text/bytes.ts";

declare module "hono" {
  interface ContextVariableMap {
    /** Set by `readJsonRpcMessage` on /mcp: what the POSTed message asks for, and the ids a refusal answers. */
    jsonRpcMessage?: InspectedBody;
    /** Set by the /mcp route once its response is on its way: the request ids that got a real answer. */
    mcpAnswered?: Promise<ReadonlySet<JsonRpcId>>;
  }
}

/**
 * The largest JSON-RPC message /mcp accepts: 4 MiB, the limit of the agents
 * Streamable HTTP transport (`MAXIMUM_MESSAGE_SIZE_BYTES` in agents/mcp, the
 * same "4mb" as the MCP SDK's SSE transport), which refuses anything bigger
 * with 413 anyway. Tool calls are a few hundred bytes; the limit only has to
 * stop the Worker from buffering an arbitrary body before that refusal.
 */
export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/**
 * Reads a POSTed JSON-RPC message on /mcp once, for everything in front of
 * the MCP session: refuses a body over MAX_MESSAGE_BYTES with 413 (by its
 * Content-Length, or by reading no further than the limit when it has none),
 * and stores its inspection as `c.get("jsonRpcMessage")`, so that 401 and
 * 429 refusals answer the request's ids and the quota gate counts its
 * answer_query calls. The body is read from a clone: the transport reads the
 * original.
 *
 * @example mcp.use("/mcp", mcpOriginGuard(), readJsonRpcMessage(), authenticateCaller(), mcpAnswerQuota());
 */
export function readJsonRpcMessage(): MiddlewareHandler<{ Bindings: Env }> {
  return async (c, next) => {
    if (c.req.method !== "POST") {
      c.set("jsonRpcMessage", { answerQueryCalls: 0, answerQueryIds: [], requestIds: [], batch: false });
      return next();
    }
    const declared = Number.parseInt(c.req.header("content-length") ?? "", 10);
    const body = declared > MAX_MESSAGE_BYTES ? null : await readAtMost(c.req.raw.clone(), MAX_MESSAGE_BYTES);
    if (body === null) throw messageTooLarge();
    const headers = { protocolVersion: c.req.header("mcp-protocol-version"), method: c.req.header("mcp-method"), name: c.req.header("mcp-name") };
    c.set("jsonRpcMessage", inspectJsonRpcBody(body, headers));
    await next();
  };
}

function messageTooLarge(): RefusalError {
  const error = new AlmanacError(
    "INVALID_ARGUMENT",
    `the JSON-RPC message is larger than ${MAX_MESSAGE_BYTES} bytes (4 MiB), the most this MCP server accepts; send a smaller message, or split a batch into several requests`,
    undefined,
    { data: { maxBytes: MAX_MESSAGE_BYTES } },
  );
  return new RefusalError(error, { httpStatus: 413 });
}

/** The body as text, or null as soon as it proves longer than `limit` bytes (the rest is never read). */
async function readAtMost(request: Request, limit: number): Promise<string | null> {
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    size += read.value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return null;
    }
    chunks.push(read.value);
  }
  return new TextDecoder().decode(concatBytes(chunks, size));
}
