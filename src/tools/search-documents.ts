import { z } from "zod";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type SearchResult } from "../documents/search/search-documents.ts";
import { resultBudget } from "../config.ts";
import { retrievalFor } from "../documents/search/retrieval.ts";
import { READ_ONLY_ANNOTATIONS, defineTool } from "./define.ts";
import { documentSummarySchema, filterField, queryField } from "./document-fields.ts";

const hitSchema = z.object({
  parent: z.string().describe("Name of the document this chunk belongs to; pass it to get_documents for the whole page"),
  id: z.string().describe("Chunk id, unique within its document (the section anchor)"),
  content: z.string().describe("The chunk's Markdown, starting with its heading path"),
  document: documentSummarySchema,
  relevanceScore: z
    .number()
    .min(0)
    .max(1)
    .optional()
    .describe("How relevant the chunk is to the query, 0–1 (higher is more relevant, never higher than an earlier result's); comparable across queries"),
});

export const searchDocumentsTool = defineTool({
  name: "search_documents",
  title: "Search documentation",
  description: [
    "Search the documentation corpus and get back the most relevant chunks (page sections), best first.",
    "Use it for exact code samples, API names, CLI flags, configuration keys, error messages and step-by-step instructions.",
    "Each result is a chunk, not a whole page: pass a result's `parent` to get_documents to read the full page.",
    "Write queries as keywords or a short question; if nothing comes back, rephrase with other or fewer words.",
    "Use `pageToken` from `nextPageToken` for more results of the same query.",
  ].join(" "),
  inputSchema: {
    query: queryField.describe("What to look for: keywords or a short question (1–500 characters)"),
    pageSize: z
      .number()
      .int("pageSize must be a whole number")
      .min(1, "pageSize must be at least 1")
      .max(MAX_PAGE_SIZE, `pageSize must be at most ${MAX_PAGE_SIZE}`)
      .optional()
      .describe(`How many chunks to return, 1–${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE})`),
    pageToken: z.string().max(200, "pageToken is too long; pass nextPageToken exactly as returned").optional().describe("nextPageToken from a previous call with the same query, for the next page"),
    filter: filterField,
    minScore: z
      .number()
      .min(0, "minScore must be between 0 and 1")
      .max(1, "minScore must be between 0 and 1")
      .optional()
      .describe("Leave out results whose relevanceScore is below this, 0–1 (e.g. 0.5 drops chunks holding less than half of what the query asks)"),
  },
  outputSchema: {
    results: z.array(hitSchema).describe("Matching chunks, most relevant first; empty when nothing matched"),
    nextPageToken: z.string().optional().describe("Pass as pageToken to get the next page; absent on the last page"),
  },
  annotations: { title: "Search documentation", ...READ_ONLY_ANNOTATIONS },
  async run(env, args, context) {
    const result = await retrievalFor(env, context).search({ ...args, budgetChars: resultBudget(env) });
    return { structured: result, text: formatSearchResult(args.query, result) };
  },
});

/** The Markdown a model reads: per hit the title, uri, parent, update time, relevance score and content. */
export function formatSearchResult(query: string, result: SearchResult): string {
  if (result.results.length === 0) {
    return `No documentation matched "${query}". Rephrase with other or fewer keywords (a product, API or error name works best), or drop the filter.`;
  }
  const hits = result.results.map((hit, index) =>
    [
      `## ${index + 1}. ${hit.document.title}`,
      `- uri: ${sectionLink(hit.document.uri, hit.id)}`,
      `- parent: ${hit.parent}`,
      ...(hit.document.version ? [`- version: ${hit.document.version} (${hit.document.dataSource})`] : []),
      `- updated: ${hit.document.updateTime}`,
      ...(hit.relevanceScore === undefined ? [] : [`- relevance: ${hit.relevanceScore}`]),
      "",
      hit.content,
    ].join("\n"),
  );
  const more = result.nextPageToken ? `\n\nMore results: call again with pageToken "${result.nextPageToken}".` : "";
  return `${hits.join("\n\n---\n\n")}${more}\n\nFor a whole page, call get_documents with its parent.`;
}

/**
 * A link to the chunk's section on the real page: its heading's anchor. The
 * `-part-N` pieces of a long section, headings a site page gives no id
 * (html.ts anchorUnnamedHeadings) and the lead ("intro") have no anchor of
 * their own, so they link to the nearest named section before them, or the page.
 */
export function sectionLink(uri: string, chunkId: string): string {
  const anchor = chunkId.replace(/(?:-part-\d+)+$/, "");
  return anchor === "intro" ? uri : `${uri}#${anchor}`;
}
