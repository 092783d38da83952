/**
 * The statuses Almanac reports, named as in Google's API error model
 * (google.rpc.Code) so that MCP text, REST bodies and logs agree.
 */
export type AlmanacStatus =
  | "INVALID_ARGUMENT"
  | "NOT_FOUND"
  | "UNAUTHENTICATED"
  | "PERMISSION_DENIED"
  | "RESOURCE_EXHAUSTED"
  | "FAILED_PRECONDITION"
  | "UNAVAILABLE"
  | "UNIMPLEMENTED"
  | "INTERNAL";

/** HTTP status for each Almanac status, as Google's REST APIs map them. */
export const HTTP_STATUS: Record<AlmanacStatus, 400 | 401 | 403 | 404 | 429 | 500 | 501 | 503> = {
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  RESOURCE_EXHAUSTED: 429,
  INTERNAL: 500,
  UNIMPLEMENTED: 501,
  UNAVAILABLE: 503,
};

/** What an error adds to the HTTP response that refuses a request. */
interface AlmanacErrorOptions {
  /** Response headers, e.g. Retry-After on RESOURCE_EXHAUSTED. */
  headers?: Record<string, string>;
  /** Extra fields for a JSON-RPC error's `data`, for programs. */
  data?: Record<string, unknown>;
}

/**
 * The one error type domain code throws. `message` is public: it is what the
 * model or the REST client reads, so it says what was wrong and what to do.
 * `detail` is internal and only ever logged. `options` carry what an HTTP
 * refusal adds (src/http/refusal.ts); tool results ignore them.
 *
 * @example throw new AlmanacError("NOT_FOUND", 'no document named "documents/x"; use search_documents to find names')
 * @example throw new AlmanacError("RESOURCE_EXHAUSTED", "…", undefined, { headers: { "Retry-After": "42" }, data: { retryAfterSeconds: 42 } })
 */
export class AlmanacError extends Error {
  readonly status: AlmanacStatus;
  readonly detail?: unknown;
  readonly headers?: Record<string, string>;
  readonly data?: Record<string, unknown>;

  constructor(status: AlmanacStatus, message: string, detail?: unknown, options: AlmanacErrorOptions = {}) {
    super(message);
    this.name = "AlmanacError";
    this.status = status;
    this.detail = detail;
    this.headers = options.headers;
    this.data = options.data;
  }

  /** The text a model sees: the status first, then the message. */
  toText(): string {
    return `${this.status}: ${this.message}`;
  }
}

/** Wraps anything thrown into an AlmanacError, hiding unexpected internals. */
export function toAlmanacError(error: unknown): AlmanacError {
  if (error instanceof AlmanacError) return error;
  return new AlmanacError("INTERNAL", "the server failed to handle this request; try again, and report it if it persists", error);
}
