import { z } from "zod";
import { VERBS } from "../library/entry.ts";
import { getQueryLibraryEntry, type LibraryEntryView } from "../library/get.ts";
import { resultBudget } from "../config.ts";
import { READ_ONLY_ANNOTATIONS, defineTool, reads } from "./define.ts";
import { costOutput, formatField, outputColumnOutput, paramDeclarationOutput, sourceFields, textWriter } from "./library-fields.ts";

export const queryLibraryGetTool = defineTool({
  name: "query_library_get",
  title: "Get a query library entry",
  description: [
    "Get one query-library entry by id, as returned by query_library_search.",
    "Without params: the teaching view, with the param declarations, the raw SQL template and notes; read them, then call again with params.",
    "With params: the template rendered with validated values; `valid: true` comes with `sql`, otherwise `errors`, `missing_params` and `unknown_params` say what to fix (these are not tool errors).",
    "This tool never executes SQL: run `sql` with the StackQL tool named in `next_tool` (run_select_query, run_mutation_query or run_lifecycle_operation) on a StackQL server that has the credentials listed in `auth`.",
  ].join(" "),
  inputSchema: {
    // No length limit here: SPEC 3.2 answers every bad id with its own message, which the domain gives.
    id: z.string().describe('Entry id from query_library_search, e.g. "aws/s3/buckets-list"'),
    params: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('Param values by name, e.g. {"region": "us-east-1"}; omit (or pass {}) to see the entry without rendering'),
    format: formatField,
  },
  outputSchema: {
    id: z.string().describe("Entry id"),
    title: z.string().describe("Entry title"),
    description: z.string().describe("What the query answers"),
    mutation: z.boolean().describe("true when the SQL changes resources"),
    verb: z.enum(VERBS).describe("Statement kind; decides next_tool"),
    next_tool: z.string().describe("The StackQL MCP tool that executes this SQL"),
    params: z.array(paramDeclarationOutput).describe("Declared params"),
    template: z.string().optional().describe("Raw SQL template with {{name}} placeholders (teaching view only)"),
    notes: z.string().optional().describe("Operational notes (teaching view only)"),
    rendered: z.boolean().describe("true when params were given and rendering was attempted"),
    valid: z.boolean().describe("true when `sql` is ready to run"),
    sql: z.string().optional().describe("The rendered SQL, present exactly when valid"),
    missing_params: z.array(z.string()).describe("Required params that were not supplied"),
    unknown_params: z.array(z.string()).describe("Supplied params the entry does not declare"),
    errors: z.array(z.string()).describe("What to fix before the SQL can be rendered"),
    auth: z.array(z.string()).describe("Environment variable names the StackQL server needs (names only)"),
    permissions: z.array(z.string()).describe("Provider permissions the query needs"),
    cost: costOutput.describe("How expensive the query is to run"),
    outputs: z.array(outputColumnOutput).describe("Columns the query returns"),
    related: z.array(z.string()).describe("Ids of related entries"),
    doc_url: z.string().describe("The entry's documentation page"),
    ...sourceFields,
  },
  annotations: { title: "Get a query library entry", ...READ_ONLY_ANNOTATIONS },
  async run(env, { format, ...input }, context) {
    const writeText = textWriter(format, resultBudget(env));
    const view = await reads(context).read(env.DB, (db) => getQueryLibraryEntry({ ...env, DB: db }, input));
    return { structured: view, text: writeText(view, formatLibraryEntry) };
  },
});

/** The Markdown a model reads: a `Query Library Entry` key–value block, keys sorted. */
function formatLibraryEntry(view: LibraryEntryView): string {
  const fields: Record<string, string> = {
    doc_url: view.doc_url,
    id: view.id,
    mutation: String(view.mutation),
    next_tool: view.next_tool,
    source: view.stale ? `${view.source_tier} (stale)` : view.source_tier,
    valid: String(view.valid),
  };
  if (view.sql !== undefined) fields.sql = fenced(view.sql);
  if (view.template !== undefined) fields.template = fenced(view.template);
  if (view.errors.length > 0) fields.errors = view.errors.join("; ");
  const lines = Object.keys(fields)
    .sort()
    .map((key) => {
      const value = fields[key] ?? "";
      return value.startsWith("\n") ? `${key}:${value}` : `${key}: ${value}`;
    });
  return ["## Query Library Entry", "", ...lines].join("\n");
}

function fenced(sql: string): string {
  return `\n\`\`\`sql\n${sql}\n\`\`\``;
}
