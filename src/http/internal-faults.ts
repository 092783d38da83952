import type { AlmanacError } from "../errors.ts";

/**
 * The one place an INTERNAL fault is logged, with its hidden detail: every
 * transport's error handler and every place that turns a fault into an
 * answer (a tool's isError result, a panel's message) calls it, so a fault
 * is logged once, the same way, wherever it surfaces. Other statuses are
 * the caller's mistake and are not logged.
 *
 * @example logInternalFault(`${c.req.method} ${c.req.path}`, error); // "GET /healthz failed: <detail>"
 */
export function logInternalFault(where: string, error: AlmanacError): void {
  if (error.status === "INTERNAL") console.error(`${where} failed:`, error.detail ?? error.message);
}
