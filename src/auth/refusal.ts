import { type AlmanacError, HTTP_STATUS } from "../errors.ts";

/**
 * How a refused HTTP request is answered: `json-rpc` on /mcp (MCP clients
 * read a JSON-RPC error), `google` on the REST facade (Google's error model).
 */
export type RefusalFormat = "json-rpc" | "google";

/** A JSON-RPC request id; null when the refused request's ids are unknown. */
export type JsonRpcId = string | number | null;

/**
 * The HTTP response refusing a request with `error`.
 * - `google`: `{ error: { code, message, status } }`.
 * - `json-rpc`: one error per refused request, with the request's id (an
 *   array for a batch, as JSON-RPC answers batches), or one with id null.
 *   The message starts with the status, like a tool error's text.
 *
 * @example return refusal("json-rpc", new AlmanacError("UNAUTHENTICATED", "…"), { headers: { "WWW-Authenticate": "Bearer" } })
 */
export function refusal(
  format: RefusalFormat,
  error: AlmanacError,
  options: { headers?: Record<string, string>; ids?: JsonRpcId[]; batch?: boolean; data?: Record<string, unknown> } = {},
): Response {
  const status = HTTP_STATUS[error.status];
  const body =
    format === "google" ? { error: { code: status, message: error.message, status: error.status } } : jsonRpcErrors(error, options);
  return Response.json(body, { status, headers: options.headers });
}

/**
 * -32000 is the first of JSON-RPC's implementation-defined server error codes;
 * MCP servers use it for transport-level refusals, and `data.status` carries
 * Almanac's status for programs.
 */
const SERVER_ERROR = -32000;

function jsonRpcErrors(error: AlmanacError, options: { ids?: JsonRpcId[]; batch?: boolean; data?: Record<string, unknown> }) {
  const ids = options.ids && options.ids.length > 0 ? options.ids : [null];
  const errors = ids.map((id) => ({
    jsonrpc: "2.0" as const,
    id,
    error: { code: SERVER_ERROR, message: error.toText(), data: { status: error.status, ...options.data } },
  }));
  return options.batch ? errors : errors[0];
}
