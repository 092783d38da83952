import { z } from "zod";
import { DEFAULT_LIMIT, MAX_LIMIT, searchQueryLibrary, type LibrarySearchResult } from "../library/search.ts";
import { resultBudget } from "../config.ts";
import { READ_ONLY_ANNOTATIONS, defineTool, reads } from "./define.ts";
import { MAX_QUERY_LENGTH } from "./document-fields.ts";
import { formatField, sourceFields, tableCell, textWriter } from "./library-fields.ts";

const hitSchema = z.object({
  id: z.string().describe("Entry id; pass it to query_library_get"),
  title: z.string().describe("Entry title"),
  description: z.string().describe("What the query answers"),
  providers: z.array(z.string()).describe("StackQL providers the template uses"),
  services: z.array(z.string()).describe("StackQL services the template touches"),
  mutation: z.boolean().describe("true when the entry changes resources (verb mutation or lifecycle)"),
  required_params: z.array(z.string()).describe("Params you must supply to render the SQL"),
  score: z.number().describe("Relevance to the intent; below 2.5 is a miss"),
});

export const queryLibrarySearchTool = defineTool({
  name: "query_library_search",
  title: "Search the query library",
  description: [
    "Find vetted, parameterised StackQL SQL recipes by intent, e.g. \"list all s3 buckets\" or \"iam users without mfa\", best first.",
    "Phrase the intent the way a person asks; narrow with provider, service or tags.",
    "Each hit gives an id and its required params: pass the id to query_library_get to see the template and get validated SQL.",
    "Entries that change resources (mutation or lifecycle) are hidden unless include_mutations is true, and never shown when the server runs read_only.",
    "When `miss` is true the library has no good recipe: follow `guidance` and author the query yourself with your StackQL server's discovery tools.",
    "Almanac never executes SQL.",
  ].join(" "),
  inputSchema: {
    intent: z
      .string()
      .min(1, "intent must not be empty; say what you want to query, e.g. \"list all s3 buckets\"")
      .max(MAX_QUERY_LENGTH, `intent must be at most ${MAX_QUERY_LENGTH} characters`)
      .describe('What you want to do, in plain words, e.g. "list all s3 buckets"'),
    provider: z.string().max(100).optional().describe('Only entries for this provider or provider family, e.g. "aws", "google", "github"'),
    service: z.string().max(100).optional().describe('Only entries touching this service, e.g. "s3", "iam"'),
    tags: z.array(z.string().max(100)).max(20).optional().describe("Only entries carrying every one of these tags"),
    include_mutations: z.boolean().optional().describe("Also return entries that change resources (verb mutation or lifecycle); default false"),
    limit: z
      .number()
      .int("limit must be a whole number")
      .min(1, "limit must be at least 1")
      .max(MAX_LIMIT, `limit must be at most ${MAX_LIMIT}`)
      .optional()
      .describe(`How many hits to return, 1–${MAX_LIMIT} (default ${DEFAULT_LIMIT})`),
    format: formatField,
  },
  outputSchema: {
    hits: z.array(hitSchema).describe("Matching entries, best first"),
    miss: z.boolean().describe("true when nothing fits well (no hit, or the best score is below 2.5)"),
    guidance: z.string().optional().describe("On a miss: how to author the query yourself instead"),
    ...sourceFields,
  },
  annotations: { title: "Search the query library", ...READ_ONLY_ANNOTATIONS },
  async run(env, { format, ...query }, context) {
    const writeText = textWriter(format, resultBudget(env));
    const result = await reads(context).read(env.DB, (db) => searchQueryLibrary({ ...env, DB: db }, query));
    return { structured: result, text: writeText(result, formatLibrarySearch) };
  },
});

/** Said last when the bundled snapshot answered. */
export const STALE_NOTICE = "Served from the bundled snapshot of the default library because the live library is unavailable; it may be stale.";

/** The Markdown a model reads (SPEC 3.1): a table of hits, the source, guidance on a miss, and last a notice when stale. */
function formatLibrarySearch(result: LibrarySearchResult): string {
  const rows = result.hits.map(
    (hit) => `| ${hit.id} | ${hit.mutation} | ${hit.required_params.join(", ") || "none"} | ${hit.score.toFixed(1)} | ${tableCell(hit.title)} |`,
  );
  const lines = ["| id | mutation | required_params | score | title |", "| --- | --- | --- | --- | --- |", ...rows, "", `Source: ${result.source_url}`];
  if (result.guidance) lines.push("", result.guidance);
  if (result.stale) lines.push("", STALE_NOTICE);
  return lines.join("\n");
}
