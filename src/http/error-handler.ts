import type { ErrorHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { toAlmanacError } from "../errors.ts";
import { refusal } from "./refusal.ts";

/**
 * The app's one answer to anything a route or middleware throws. An
 * AlmanacError answers with its HTTP status and public message; anything else
 * is logged and answered 500 INTERNAL without its details. On /mcp (where
 * `readJsonRpcMessage` ran) the body is a JSON-RPC error for the request's
 * ids, elsewhere Google's error body.
 *
 * @example app.onError(errorHandler);
 */
export const errorHandler: ErrorHandler<{ Bindings: Env }> = (thrown, c) => {
  // hono's own middleware throw HTTPException with the response they mean.
  if (thrown instanceof HTTPException) return thrown.getResponse();
  const error = toAlmanacError(thrown);
  if (error.status === "INTERNAL") console.error(`${c.req.method} ${c.req.path} failed:`, error.detail ?? error.message);
  const message = c.get("jsonRpcMessage");
  return message ? refusal("json-rpc", error, { ids: message.requestIds, batch: message.batch }) : refusal("google", error);
};
