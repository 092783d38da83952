import type { MiddlewareHandler } from "hono";
import { identifyCaller } from "../auth/caller.ts";

/**
 * Identifies the caller of a panel request exactly as /mcp and /v1 do
 * (src/auth/caller.ts), with one more place a key can come from: the page's
 * key field, which a form cannot send as a header. The field is Google's
 * `key` parameter sent in the POST body instead of the address, so it stays
 * out of history and logs; it is counted as `?key=`, so a different key in
 * a header is refused as two keys, and a bad one gets the same 401.
 *
 * @example site.post("/try/ask", readTryRequest("ask"), webCaller(), answerQuota(…), …);
 */
export function webCaller(): MiddlewareHandler<{ Bindings: Env }> {
  return async (c, next) => {
    const request = c.get("tryRequest");
    const formKey = request.panel === "ask" || request.panel === "allowance" ? request.input.key : undefined;
    c.set("caller", await identifyCaller(c.env, withFormKey(c.req.raw, formKey)));
    await next();
  };
}

/** The request as the caller check reads it: the form's key added as one more `?key=`. */
function withFormKey(request: Request, key: string | undefined): Request {
  if (key === undefined) return request;
  const url = new URL(request.url);
  url.searchParams.append("key", key);
  return new Request(url, { headers: request.headers });
}
