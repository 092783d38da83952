import type { Context, ErrorHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { type AlmanacError, toAlmanacError } from "../errors.ts";
import { logInternalFault } from "./internal-faults.ts";
import { refusal, refusalOptions } from "./refusal.ts";

/**
 * A transport's onError, from how it answers an AlmanacError: hono's own
 * HTTPException keeps the response it carries; anything else becomes an
 * AlmanacError (an unexpected throw is INTERNAL, its details logged once,
 * never shown) and is answered in the transport's format.
 *
 * @example mcp.onError(errorHandlerAnswering((error, c) => refusal("json-rpc", error, …)));
 */
export function errorHandlerAnswering(
  answer: (error: AlmanacError, c: Context<{ Bindings: Env }>) => Response | Promise<Response>,
): ErrorHandler<{ Bindings: Env }> {
  return (thrown, c) => {
    // hono's own middleware throw HTTPException with the response they mean.
    if (thrown instanceof HTTPException) return thrown.getResponse();
    const error = toAlmanacError(thrown);
    logInternalFault(`${c.req.method} ${c.req.path}`, error);
    return answer(error, c);
  };
}

/**
 * The answer in Google's error body, `{ error: { code, message, status } }`,
 * with the error's status (or the more precise 405/413/414 a RefusalError
 * carries) and headers: the REST facade's onError and the app's own, for
 * /healthz and paths nothing serves.
 *
 * @example app.onError(errorHandler);
 */
export const errorHandler: ErrorHandler<{ Bindings: Env }> = errorHandlerAnswering((error) => refusal("google", error, refusalOptions(error)));
