import { AlmanacError, HTTP_STATUS } from "../errors.ts";

/**
 * How a refused HTTP request is answered: `json-rpc` on /mcp (MCP clients
 * read a JSON-RPC error), `google` on every other route (Google's error
 * model; also the format of the REST facade, src/rest).
 */
type RefusalFormat = "json-rpc" | "google";

/** A JSON-RPC request id; null when the refused request's ids are unknown. */
export type JsonRpcId = string | number | null;

/** What a refusal may add to the error's own status, message, headers and data. */
interface RefusalOptions {
  /** The ids of the refused requests; without them the one error has id null. */
  ids?: JsonRpcId[];
  /** Whether the refused message was a batch, which JSON-RPC answers with an array. */
  batch?: boolean;
  /**
   * The HTTP status, where HTTP has a more precise one than google.rpc.Code:
   * 413 for a body over the size limit (which Google calls INVALID_ARGUMENT),
   * 405 for a method a path does not serve (on /v1, status UNIMPLEMENTED, as
   * grpc-gateway answers it; on /mcp, a method it does not serve), 414 for a URL over its limit,
   * 409 for a webhook delivery received before (a replay).
   */
  httpStatus?: 405 | 409 | 413 | 414;
  /**
   * The JSON-RPC error code, where JSON-RPC has a precise one (-32600 for a
   * message that is not valid JSON-RPC, -32602 for bad params); otherwise -32000.
   */
  jsonRpcCode?: number;
}

/**
 * An AlmanacError whose answer HTTP or JSON-RPC says more precisely than its
 * status: a 405, 413 or 414, a JSON-RPC code, the ids it answers. Guards
 * throw it like any AlmanacError; the transport's error handler answers it.
 *
 * @example throw new RefusalError(new AlmanacError("INVALID_ARGUMENT", "the body is over 16384 bytes"), { httpStatus: 413 });
 */
export class RefusalError extends AlmanacError {
  readonly refusal: RefusalOptions;

  constructor(error: AlmanacError, refusal: RefusalOptions) {
    super(error.status, error.message, error.detail, { headers: error.headers, data: error.data });
    this.refusal = refusal;
  }
}

/** The refusal options a thrown error carries (none for a plain AlmanacError). */
export function refusalOptions(error: AlmanacError): RefusalOptions {
  return error instanceof RefusalError ? error.refusal : {};
}

/**
 * The one place an AlmanacError becomes an HTTP response, with the error's
 * own `headers` and, for UNAUTHENTICATED, the WWW-Authenticate challenge.
 * - `google`: `{ error: { code, message, status } }`.
 * - `json-rpc`: one error per refused request, with the request's id (an
 *   array for a batch, as JSON-RPC answers batches), or one with id null.
 *   The message starts with the status, like a tool error's text, and
 *   `data` holds the status and the error's own `data`.
 *
 * @example return refusal("json-rpc", new AlmanacError("PERMISSION_DENIED", "…"))
 */
export function refusal(format: RefusalFormat, error: AlmanacError, options: RefusalOptions = {}): Response {
  const status = options.httpStatus ?? HTTP_STATUS[error.status];
  const body =
    format === "google" ? { error: { code: status, message: error.message, status: error.status } } : jsonRpcErrors(error, options);
  // RFC 9110 §15.5.2: a 401 names the scheme the server accepts.
  const challenge: Record<string, string> = error.status === "UNAUTHENTICATED" ? { "WWW-Authenticate": 'Bearer realm="almanac"' } : {};
  return Response.json(body, { status, headers: { ...challenge, ...error.headers } });
}

/**
 * -32000 is the first of JSON-RPC's implementation-defined server error codes;
 * MCP servers use it for transport-level refusals, and `data.status` carries
 * Almanac's status for programs.
 */
const SERVER_ERROR = -32000;

function jsonRpcErrors(error: AlmanacError, options: RefusalOptions) {
  const ids = options.ids && options.ids.length > 0 ? options.ids : [null];
  const errors = ids.map((id) => ({
    jsonrpc: "2.0" as const,
    id,
    error: { code: options.jsonRpcCode ?? SERVER_ERROR, message: error.toText(), data: { status: error.status, ...error.data } },
  }));
  return options.batch ? errors : errors[0];
}
