// GET /v1/documents:searchDocumentChunks: search_documents for Google's client.
import type { Context } from "hono";
import { resultBudget } from "../config.ts";
import { retrievalFor } from "../documents/search/retrieval.ts";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "../documents/search/search-documents.ts";
import { AlmanacError } from "../errors.ts";
import { filterField, queryField } from "../tools/document-fields.ts";
import { int32Value, optionalValue, readParameters, requiredValue, type RestMethod } from "./parameters.ts";
import { searchResponse } from "./resources.ts";
import { respond } from "./respond.ts";

/** developerknowledge.documents.searchDocumentChunks: its query parameters. */
const SEARCH_DOCUMENT_CHUNKS: RestMethod = {
  id: "developerknowledge.documents.searchDocumentChunks",
  parameters: ["query", "pageSize", "pageToken", "filter", "minScore"],
};

/**
 * An extension parameter (Google's method has none such; its clients never
 * send it): results whose relevanceScore is below it are left out.
 */
function minScoreOf(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const score = /^\s*(?:0(?:\.\d+)?|1(?:\.0+)?|\.\d+)\s*$/.test(value) ? Number(value) : Number.NaN;
  if (Number.isNaN(score)) throw new AlmanacError("INVALID_ARGUMENT", `minScore must be a number from 0 to 1, not "${value.slice(0, 40)}"`);
  return score;
}

/** Google's discovery document: "The maximum value is 100; values above 100 will be coerced to 100." */
const MAX_REST_PAGE_SIZE = 100;

/**
 * Google's pageSize: unset or 0 means the default (5), a negative size is
 * refused, and one above 100 is coerced to 100.
 */
function pageSizeOf(size: number | undefined): number {
  if (size === undefined || size === 0) return DEFAULT_PAGE_SIZE;
  if (size < 0) throw new AlmanacError("INVALID_ARGUMENT", `pageSize must not be negative (got ${size}); omit it for ${DEFAULT_PAGE_SIZE} results`);
  return Math.min(size, MAX_REST_PAGE_SIZE);
}

/**
 * The chunks search_documents finds, with the same ranking, page tokens and
 * result budget, each with its page's metadata in the BASIC view.
 */
export async function searchDocumentChunks(c: Context<{ Bindings: Env }>): Promise<Response> {
  const { parameters, system } = readParameters(new URL(c.req.url), SEARCH_DOCUMENT_CHUNKS);
  const retrieval = retrievalFor(c.env, { viewer: c.get("viewer") });
  const pageSize = pageSizeOf(int32Value(parameters, "pageSize"));
  const result = await retrieval.search({
    query: requiredValue(parameters, "query", queryField, 'ask a question or give keywords, e.g. query=connect+Claude+Code'),
    pageSize,
    // proto3: an empty string is an unset field.
    pageToken: optionalValue(parameters, "pageToken") || undefined,
    filter: optionalValue(parameters, "filter", filterField) || undefined,
    minScore: minScoreOf(optionalValue(parameters, "minScore")),
    // MCP's budget for MCP's largest page (20), growing with pageSize past it, so both doors page alike up to 20.
    budgetChars: resultBudget(c.env) * Math.ceil(pageSize / MAX_PAGE_SIZE),
  });
  const contentLengths = await retrieval.contentLengths(result.results.map((hit) => hit.parent));
  return respond(c, system, searchResponse(result, contentLengths));
}
