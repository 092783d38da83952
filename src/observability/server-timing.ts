import type { MiddlewareHandler } from "hono";
import { RequestTimings, collectTimings, serverTimingValue } from "./timings.ts";

/**
 * Hono middleware: collects the timings of the request it wraps (timings.ts)
 * and reports them in a `Server-Timing` header: D1 time, the tool's own
 * time, and the whole request. A tool that runs in a Durable Object (a
 * 2025-era MCP session) is timed there, out of this request's reach: its
 * response carries only `total`.
 *
 * @example app.use(serverTiming())
 */
export function serverTiming(): MiddlewareHandler {
  return async (c, next) => {
    const timings = new RequestTimings();
    const started = performance.now();
    await collectTimings(timings, next);
    timings.add("total", performance.now() - started);
    const value = serverTimingValue(timings);
    try {
      c.res.headers.append("Server-Timing", value);
    } catch {
      // A response from fetch() (the Durable Object's) has immutable headers: copy it, body streaming through.
      c.res = new Response(c.res.body, c.res);
      c.res.headers.append("Server-Timing", value);
    }
  };
}
