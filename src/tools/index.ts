import { commaList } from "../config.ts";
import type { AnyToolDefinition } from "./define.ts";
import { answerQueryTool } from "./answer-query.ts";
import { getDocumentsTool } from "./get-documents.ts";
import { queryLibraryGetTool } from "./query-library-get.ts";
import { queryLibrarySearchTool } from "./query-library-search.ts";
import { searchDocumentsTool } from "./search-documents.ts";

/** Every tool Almanac offers, in the order tools/list shows them. */
export const ALL_TOOLS: readonly AnyToolDefinition[] = [
  searchDocumentsTool,
  getDocumentsTool,
  answerQueryTool,
  queryLibrarySearchTool,
  queryLibraryGetTool,
];

/** ENABLED_TOOLS values already resolved: the env is the same for every request an isolate serves. */
const resolvedTools = new Map<string, readonly AnyToolDefinition[]>();

/**
 * The tools ENABLED_TOOLS allows (a comma list; empty allows all), resolved
 * once per value, so an unknown name is warned about once per isolate.
 *
 * @example enabledTools("search_documents, get_documents").map((tool) => tool.name) // ["search_documents", "get_documents"]
 */
export function enabledTools(enabled: string | undefined): readonly AnyToolDefinition[] {
  const key = enabled ?? "";
  let tools = resolvedTools.get(key);
  if (!tools) {
    tools = resolveTools(key);
    resolvedTools.set(key, tools);
  }
  return tools;
}

/**
 * Whether ENABLED_TOOLS leaves the tool `name` on: the one question every
 * transport asks before serving a tool's method, panel or quota.
 *
 * @example toolIsEnabled({ ENABLED_TOOLS: "search_documents" }, "answer_query") // false
 */
export function toolIsEnabled(env: Pick<Env, "ENABLED_TOOLS">, name: string): boolean {
  return enabledTools(env.ENABLED_TOOLS).some((tool) => tool.name === name);
}

function resolveTools(enabled: string): readonly AnyToolDefinition[] {
  const names = commaList(enabled);
  if (names.length === 0) return ALL_TOOLS;
  const unknown = names.filter((name) => !ALL_TOOLS.some((tool) => tool.name === name));
  // A misspelt name would otherwise disable a tool without a word.
  if (unknown.length > 0) console.warn(`ENABLED_TOOLS names unknown tools: ${unknown.join(", ")}; known: ${ALL_TOOLS.map((tool) => tool.name).join(", ")}`);
  return ALL_TOOLS.filter((tool) => names.includes(tool.name));
}

/** The workflow the server's instructions teach every client (SPEC 2.5). */
export const SERVER_INSTRUCTIONS = [
  "Almanac serves documentation and a library of vetted query templates.",
  "Documentation: call search_documents to find relevant chunks, then get_documents with a chunk's `parent` for the whole page.",
  "answer_query gives a grounded, cited answer to conceptual questions; it has a limited quota, so on HTTP 429 fall back to search_documents.",
  "Cite the document names you used (`parent` or `references`).",
  "Query library: query_library_search finds entries by intent, query_library_get renders one with validated params; run the SQL with the tool named in `next_tool` on a StackQL server. Almanac itself never executes SQL.",
].join(" ");
