// POST /v1:answerQuery: answer_query for Google's client, charged to the same
// per-caller quota.
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { retrievalFor } from "../documents/search/retrieval.ts";
import { compileFilter } from "../documents/search/filter.ts";
import { AlmanacError } from "../errors.ts";
import { checkedArguments } from "../http/arguments.ts";
import { answerQuota } from "../http/answer-quota.ts";
import { RefusalError } from "../http/refusal.ts";
import { filterField, queryField } from "../tools/document-fields.ts";
import { readParameters, type RestMethod, type SystemParameters } from "./parameters.ts";
import { answerResponse } from "./resources.ts";
import { respond } from "./respond.ts";

/** AnswerQueryRequest, read and checked. */
interface AnswerQueryRequest {
  query: string;
  filter?: string;
}

declare module "hono" {
  interface ContextVariableMap {
    /** Set by `readAnswerQueryRequest` before the quota is charged. */
    answerQueryRequest: { request: AnswerQueryRequest; system: SystemParameters };
  }
}

/** The body is the whole request message, so the query string carries only system parameters. */
const ANSWER_QUERY: RestMethod = { id: "developerknowledge.answerQuery", parameters: [] };

/** AnswerQueryRequest's fields: `query`, and the `filter` of Google's later revisions (the same filter as search). */
const REQUEST_FIELDS = ["query", "filter"];

const EXAMPLE_BODY = '{"query": "How do I create an API key?"}';

/**
 * A request is a query and a filter of at most 500 characters each: even
 * written as six-byte \u escapes that is about 6 KB, so 16 KiB is ample and
 * anything larger is not an AnswerQueryRequest.
 */
const MAX_BODY_BYTES = 16 * 1024;

/**
 * Refuses a body over MAX_BODY_BYTES with 413 before reading it all.
 *
 * @example rest.post("/v1:answerQuery", answerQueryBodyLimit(), readAnswerQueryRequest(), …);
 */
export function answerQueryBodyLimit(): MiddlewareHandler<{ Bindings: Env }> {
  return bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw new RefusalError(new AlmanacError("INVALID_ARGUMENT", `the request body is over ${MAX_BODY_BYTES} bytes; an AnswerQueryRequest is ${EXAMPLE_BODY}`), { httpStatus: 413 });
    },
  });
}

/**
 * Reads and checks the JSON body before the quota gate, so a malformed
 * request is refused without being charged.
 *
 * @example rest.post("/v1:answerQuery", authenticateCaller(), readAnswerQueryRequest(), restAnswerQuota(), answerQuery);
 */
export function readAnswerQueryRequest(): MiddlewareHandler<{ Bindings: Env }> {
  return async (c, next) => {
    const { system } = readParameters(new URL(c.req.url), ANSWER_QUERY);
    const body = parseBody(await c.req.text());
    const unknown = Object.keys(body).find((name) => !REQUEST_FIELDS.includes(name));
    if (unknown !== undefined) {
      throw new AlmanacError("INVALID_ARGUMENT", `unknown field "${unknown.slice(0, 60)}" in the request body; AnswerQueryRequest has ${REQUEST_FIELDS.join(" and ")}`);
    }
    // proto3 JSON: null is the field's default, as if it were absent.
    if (body.query === undefined || body.query === null) throw new AlmanacError("INVALID_ARGUMENT", `query is required; send ${EXAMPLE_BODY}`);
    const request: AnswerQueryRequest = {
      query: checkedArguments(queryField, stringField(body.query, "query")),
      filter: body.filter === undefined || body.filter === null || body.filter === "" ? undefined : checkedArguments(filterField, stringField(body.filter, "filter")),
    };
    // An invalid filter is refused here, before any quota is charged.
    compileFilter(request.filter);
    c.set("answerQueryRequest", { request, system });
    await next();
  };
}

function parseBody(text: string): Record<string, unknown> {
  if (text.trim() === "") return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new AlmanacError("INVALID_ARGUMENT", `the request body is not valid JSON (${error instanceof Error ? error.message : "unreadable"}); send ${EXAMPLE_BODY}`);
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) throw new AlmanacError("INVALID_ARGUMENT", `the request body must be a JSON object: ${EXAMPLE_BODY}`);
  return body as Record<string, unknown>;
}

function stringField(value: unknown, name: string): string {
  if (typeof value !== "string") throw new AlmanacError("INVALID_ARGUMENT", `${name} must be a string, not ${Array.isArray(value) ? "an array" : typeof value}`);
  return value;
}

/**
 * The answer_query quota for POST /v1:answerQuery: every request is one
 * answer, charged to the same counter as MCP answer_query; a refusal is
 * Google's error body (`RESOURCE_EXHAUSTED`, 429).
 *
 * @example rest.post("/v1:answerQuery", readAnswerQueryRequest(), restAnswerQuota(), answerQuery);
 */
export function restAnswerQuota(): MiddlewareHandler<{ Bindings: Env }> {
  return answerQuota({ calls: () => 1 });
}

/** The grounded answer answer_query gives, with each reference as the chunk it draws on. */
export async function answerQuery(c: Context<{ Bindings: Env }>): Promise<Response> {
  const { request, system } = c.get("answerQueryRequest");
  const retrieval = retrievalFor(c.env, { viewer: c.get("viewer") });
  const sourced = await retrieval.answer(request);
  const contentLengths = await retrieval.contentLengths(sourced.answer.references);
  return respond(c, system, answerResponse(sourced, contentLengths));
}
