// The REST facade: Google's Developer Knowledge API v1, served from the same
// domain functions as the MCP tools (SPEC 5).
import { Hono } from "hono";
import { authenticateCaller } from "../http/authenticate.ts";
import { viewing } from "../http/viewer.ts";
import { callLimits } from "../http/call-limits.ts";
import { errorHandler } from "../http/error-handler.ts";
import { requireTool as requireToolFor } from "../http/require-tool.ts";
import { answerQuery, answerQueryBodyLimit, readAnswerQueryRequest, restAnswerQuota } from "./answer-query.ts";
import { batchGetDocuments, getDocument } from "./get-documents.ts";
import { methodNotAllowed, restCaching, restCors, restEtag, restNotFound, restOriginGuard } from "./http-policy.ts";
import { searchDocumentChunks } from "./search-document-chunks.ts";

/**
 * The /v1 routes, to mount at the root: the methods live at
 * `/v1/documents…` and at `/v1:answerQuery` (Google's custom-method colon,
 * which hono takes literally inside a segment). Every request passes the
 * browser rules, the caching rules and the caller check; searches and gets
 * count against their per-minute limits, and answerQuery is charged to the
 * quota after its body has been checked. Refusals are
 * Google's error body (its own onError).
 *
 * @example app.route("/", restApi());
 */
export function restApi(): Hono<{ Bindings: Env }> {
  const rest = new Hono<{ Bindings: Env }>();
  rest.onError(errorHandler);
  const requireTool = (tool: string) => requireToolFor(tool, "method");
  for (const path of ["/v1/*", "/v1:*"]) rest.use(path, restOriginGuard(), restCors(), restCaching(), restEtag(), authenticateCaller());

  // Per-minute limits as Google's: a request is one search or one get, a batchGet of 20 pages too.
  // viewing: the caller's audiences decide which data sources it reads, and restricted reads are audited (src/http/viewer.ts).
  rest.get("/v1/documents:searchDocumentChunks", requireTool("search_documents"), callLimits(() => ({ search: 1 })), viewing("rest", "searchDocumentChunks"), searchDocumentChunks);
  rest.all("/v1/documents:searchDocumentChunks", methodNotAllowed("GET"));
  rest.get("/v1/documents:batchGet", requireTool("get_documents"), callLimits(() => ({ get: 1 })), viewing("rest", "batchGet"), batchGetDocuments);
  rest.all("/v1/documents:batchGet", methodNotAllowed("GET"));
  rest.get("/v1/documents/*", requireTool("get_documents"), callLimits(() => ({ get: 1 })), viewing("rest", "get"), getDocument);
  rest.all("/v1/documents/*", methodNotAllowed("GET"));
  rest.post("/v1:answerQuery", requireTool("answer_query"), answerQueryBodyLimit(), readAnswerQueryRequest(), restAnswerQuota(), viewing("rest", "answerQuery"), answerQuery);
  rest.all("/v1:answerQuery", methodNotAllowed("POST"));

  rest.all("/v1/*", restNotFound);
  rest.all("/v1:*", restNotFound);
  return rest;
}
