/**
 * A query-library entry in StackQL's format: one Markdown file per entry at
 * `<family>/<service>/<slug>.md`, its id being that path without `.md`.
 * Field names keep the front matter's snake_case, so what an author writes,
 * what D1 stores and what the tools return read the same.
 */

/** Statement kinds; the verb decides `next_tool` and whether the entry changes resources. */
export const VERBS = ["select", "mutation", "lifecycle"] as const;
export type Verb = (typeof VERBS)[number];
/** Where an entry is in its life; `deprecated` entries never appear in search. */
export const STATUSES = ["stable", "draft", "deprecated"] as const;
export type Status = (typeof STATUSES)[number];
/** How a param value is checked and inserted (see render.ts). */
export const PARAM_TYPES = ["string", "number", "boolean", "identifier", "enum"] as const;
export type ParamType = (typeof PARAM_TYPES)[number];
/** The dimension a query iterates over. */
export const FAN_OUTS = ["none", "region", "project", "account", "subscription"] as const;
export type FanOut = (typeof FAN_OUTS)[number];
/** A param value as YAML and JSON can carry it. */
export type ScalarValue = string | number | boolean;

/** One declared template parameter. */
export interface ParamDeclaration {
  name: string;
  type: ParamType;
  /** Always present (false when the front matter omits it), as in StackQL's emitted JSON. */
  required: boolean;
  description: string;
  default?: ScalarValue;
  example?: ScalarValue;
  enum?: string[];
  /** RE2 syntax, matched against the whole value. */
  pattern?: string;
}

export interface OutputColumn {
  name: string;
  type?: string;
  description?: string;
}

export interface Cost {
  fan_out: FanOut;
  expensive: boolean;
  notes?: string;
}

/** Everything about an entry except its template and notes: what D1 indexes. */
export interface EntryMetadata {
  id: string;
  title: string;
  description: string;
  verb: Verb;
  status: Status;
  providers: string[];
  services: string[];
  tags: string[];
  keywords: string[];
  intent_keywords: string[];
  auth: string[];
  permissions: string[];
  params: ParamDeclaration[];
  outputs: OutputColumn[];
  cost: Cost;
  related: string[];
  last_verified?: string;
  author?: string;
  author_company?: string;
}

/** The parts of an entry kept in KV. */
export interface EntryBody {
  /** The first `sql` fence under `## Query`, byte for byte. */
  template: string;
  /** The `## Notes` section as one line of prose ("" when absent). */
  notes: string;
}

export type LibraryEntry = EntryMetadata & EntryBody;

/** Entry ids as the tools accept them (StackQL's ID_RE). */
export const ENTRY_ID_PATTERN = /^[a-z0-9_-]+(\/[a-z0-9_-]+)*$/;
/** Ingestion refuses longer ids, so a longer one is never in the library; it also keeps D1 lookups small. */
export const MAX_ENTRY_ID_LENGTH = 300;

/** The StackQL MCP tool that executes an entry's SQL, by verb. */
export const NEXT_TOOL: Record<Verb, string> = {
  select: "run_select_query",
  mutation: "run_mutation_query",
  lifecycle: "run_lifecycle_operation",
};

/** Mutation and lifecycle entries change real resources. */
export function isMutation(entry: Pick<EntryMetadata, "verb">): boolean {
  return entry.verb !== "select";
}

/** Params declared `required: true`, as StackQL's index lists them. */
export function requiredParams(entry: Pick<EntryMetadata, "params">): string[] {
  return entry.params.filter((param) => param.required).map((param) => param.name);
}

/** Splits an entry into what D1 indexes and what KV holds. */
export function splitEntry(entry: LibraryEntry): { metadata: EntryMetadata; body: EntryBody } {
  const { template, notes, ...metadata } = entry;
  return { metadata, body: { template, notes } };
}
