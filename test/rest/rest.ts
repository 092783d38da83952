// Requests to the REST facade through the Worker's real fetch handler, and
// Google's discovery document, which the tests take their expectations from.
import { createExecutionContext, env } from "cloudflare:test";
import app from "../../src/index.ts";
import discoveryDocument from "../fixtures/developerknowledge/developerknowledge.v1.json";

/** Google's discovery document for the Developer Knowledge API v1 (a verbatim copy). */
export const discovery = discoveryDocument;

/** A request to this Worker, with the test environment or some of it changed. */
export async function rest(path: string, init: RequestInit = {}, vars: Partial<Env> = {}): Promise<Response> {
  return app.fetch(new Request(new URL(path, "http://localhost"), init), { ...env, ...vars }, createExecutionContext());
}

/** A request's JSON body and status, for the common case. */
export async function restJson<T = Record<string, unknown>>(path: string, init: RequestInit = {}, vars: Partial<Env> = {}) {
  const response = await rest(path, init, vars);
  return { status: response.status, headers: response.headers, body: (await response.json()) as T };
}

/** POST /v1:answerQuery with a JSON body. */
export function answerQuery(body: unknown, headers: Record<string, string> = {}, vars: Partial<Env> = {}): Promise<Response> {
  return rest("/v1:answerQuery", { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(body) }, vars);
}
