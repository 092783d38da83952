import type { MiddlewareHandler } from "hono";
import { AlmanacError } from "../errors.ts";
import { toolIsEnabled } from "../tools/index.ts";

/**
 * Refuses a route whose MCP tool ENABLED_TOOLS leaves out with 403
 * PERMISSION_DENIED (as Google answers for an API that is not enabled),
 * naming it as its readers know it: a REST "method", a landing-page "panel".
 *
 * @example rest.post("/v1:answerQuery", requireTool("answer_query", "method"), …);
 */
export function requireTool(tool: string, what: "method" | "panel"): MiddlewareHandler<{ Bindings: Env }> {
  return async (c, next) => {
    if (!toolIsEnabled(c.env, tool)) throw toolTurnedOff(tool, what);
    await next();
  };
}

/** The refusal of a tool ENABLED_TOOLS leaves out. */
export function toolTurnedOff(tool: string, what: "method" | "panel"): AlmanacError {
  return new AlmanacError("PERMISSION_DENIED", `this ${what} is turned off on this server: its operator left ${tool} out of ENABLED_TOOLS`);
}
