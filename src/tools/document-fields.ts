import { z } from "zod";
import { MAX_FILTER_LENGTH } from "../documents/search/filter.ts";

/** Google's Developer Knowledge tools accept queries of 1–500 characters. */
export const MAX_QUERY_LENGTH = 500;

export const queryField = z
  .string()
  .min(1, "query must not be empty; ask a question or give keywords")
  .max(MAX_QUERY_LENGTH, `query must be at most ${MAX_QUERY_LENGTH} characters; shorten it to the key terms`);

export const filterField = z
  .string()
  .max(MAX_FILTER_LENGTH, `filter must be at most ${MAX_FILTER_LENGTH} characters`)
  .optional()
  .describe(
    'Optional AIP-160 filter on data_source, uri, version (=, !=), update_time (RFC 3339 in quotes; =, <, <=, >, >=) and content_length_bytes; AND, OR, NOT, parentheses. Without a version restriction each data source\'s current version is searched; version = "v1" picks an older one, version = "*" every version. Example: data_source = "dart.dev" AND update_time > "2026-01-01T00:00:00Z"',
  );

/** The document fields every search hit carries. */
export const documentSummarySchema = z.object({
  name: z.string().describe('Resource name, "documents/{host}/{path}"; pass it to get_documents'),
  uri: z.string().describe("URL of the page"),
  title: z.string().describe("Page title"),
  description: z.string().describe("One-line summary of the page (may be empty)"),
  dataSource: z.string().describe("The site the page comes from, e.g. dart.dev"),
  updateTime: z.string().describe("When the page content last changed (RFC 3339)"),
  version: z.string().optional().describe("The documentation version the page belongs to, e.g. v2; absent for unversioned pages"),
});
