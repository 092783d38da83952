// The last word on what leaves /mcp refused: errors raised inside the MCP
// SDKs (a header that disagrees with the body, say) quote the caller's
// values whole; here every quoted value is cut to MAX_QUOTED_CHARS.
import { MAX_QUOTED_CHARS, quoted, quotedDeep } from "../text/quote.ts";

/** An error message longer than this is cut, whatever it quotes. */
const MAX_ERROR_MESSAGE_CHARS = 2_000;

/** A refusal body longer than this is not JSON-RPC an SDK wrote about one request: it is parsed no further. */
const MAX_REFUSAL_BYTES = 8 * 1024 * 1024;

/**
 * The response, with its JSON-RPC errors' messages and data bounded when it
 * is a refusal (status 400 and above) with a JSON body; anything else passes
 * untouched, unread.
 */
export async function withBoundedErrors(response: Response): Promise<Response> {
  if (response.status < 400 || !(response.headers.get("content-type") ?? "").includes("application/json")) return response;
  const text = await response.text();
  if (text.length > MAX_REFUSAL_BYTES) return new Response(text, response);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return new Response(text, response);
  }
  const bounded = Array.isArray(body) ? body.map(boundMessage) : boundMessage(body);
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(JSON.stringify(bounded), { status: response.status, statusText: response.statusText, headers });
}

function boundMessage(message: unknown): unknown {
  if (typeof message !== "object" || message === null || !("error" in message)) return message;
  const { error } = message as { error: unknown };
  if (typeof error !== "object" || error === null) return message;
  const { message: text, data, ...rest } = error as { message?: unknown; data?: unknown };
  return {
    ...message,
    error: {
      ...rest,
      ...(typeof text === "string" ? { message: boundText(text) } : text === undefined ? {} : { message: text }),
      ...(data === undefined ? {} : { data: quotedDeep(data) }),
    },
  };
}

/**
 * Each quoted value in a message ("…" or '…') cut to MAX_QUOTED_CHARS, then
 * the message itself to MAX_ERROR_MESSAGE_CHARS.
 *
 * @example boundText(`params.name="${"n".repeat(10_000)}"`) // `params.name="nnn…n…(10000 characters)"`
 */
function boundText(text: string): string {
  const long = new RegExp(`"([^"]{${MAX_QUOTED_CHARS + 1},})"|'([^']{${MAX_QUOTED_CHARS + 1},})'`, "g");
  const cut = text.replace(long, (whole, double?: string, single?: string) => (double !== undefined ? `"${quoted(double)}"` : single !== undefined ? `'${quoted(single)}'` : whole));
  return quoted(cut, MAX_ERROR_MESSAGE_CHARS);
}
