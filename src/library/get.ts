import { AlmanacError } from "../errors.ts";
import { quoted } from "../text/quote.ts";
import {
  ENTRY_ID_PATTERN,
  MAX_ENTRY_ID_LENGTH,
  NEXT_TOOL,
  isMutation,
  type Cost,
  type LibraryEntry,
  type OutputColumn,
  type ParamDeclaration,
  type Verb,
} from "./entry.ts";
import { renderTemplate } from "./render.ts";
import { docUrlFor, librarySource, snapshotEntry, type LibraryConfig, type LibrarySource, type SourceTier } from "./source.ts";
import { DEFAULT_LIBRARY, TemplateStoreError, findStoredEntry, readEntryBody, type LibraryReadBindings } from "./store.ts";

/** query_library_get's result (SPEC 3.2). */
export interface LibraryEntryView extends LibrarySource {
  id: string;
  title: string;
  description: string;
  mutation: boolean;
  verb: Verb;
  next_tool: string;
  params: ParamDeclaration[];
  template?: string;
  notes?: string;
  rendered: boolean;
  valid: boolean;
  sql?: string;
  missing_params: string[];
  unknown_params: string[];
  errors: string[];
  auth: string[];
  permissions: string[];
  cost: Cost;
  outputs: OutputColumn[];
  related: string[];
  doc_url: string;
}

interface LibraryGetInput {
  id: string;
  params?: Readonly<Record<string, unknown>>;
}

/**
 * One entry by id: without params (absent or `{}`) the teaching view —
 * declarations, raw template, notes —; with params the rendered, validated
 * SQL. Never executes anything. Parameter problems are part of the result
 * (`valid: false`, `errors`), not thrown.
 *
 * @example await getQueryLibraryEntry(env, { id: "aws/s3/buckets-list", params: { region: "us-east-1" } })
 */
export async function getQueryLibraryEntry(env: LibraryReadBindings & LibraryConfig, input: LibraryGetInput): Promise<LibraryEntryView> {
  // The whole id is echoed, however long: SPEC 3.2 fixes this message, and the caller sent those bytes anyway.
  if (!ENTRY_ID_PATTERN.test(input.id)) throw new AlmanacError("INVALID_ARGUMENT", `invalid query id "${quoted(input.id)}"`);
  if (input.id.length > MAX_ENTRY_ID_LENGTH) throw unknownId(input.id);
  const { entry, tier } = await loadEntry(env, input.id);
  const base = {
    id: entry.id,
    title: entry.title,
    description: entry.description,
    mutation: isMutation(entry),
    verb: entry.verb,
    next_tool: NEXT_TOOL[entry.verb],
    params: entry.params,
  };
  const about = {
    auth: entry.auth,
    permissions: entry.permissions,
    cost: entry.cost,
    outputs: entry.outputs,
    related: entry.related,
    doc_url: docUrlFor(env, entry.id),
    ...librarySource(env, tier),
  };
  const params = input.params ?? {};
  if (Object.keys(params).length === 0) {
    return {
      ...base,
      template: entry.template,
      ...(entry.notes && { notes: entry.notes }),
      rendered: false,
      valid: false,
      missing_params: [],
      unknown_params: [],
      errors: [],
      ...about,
    };
  }
  const { valid, sql, missing_params, unknown_params, errors } = renderTemplate(entry, params);
  return { ...base, rendered: true, valid, ...(sql !== undefined && { sql }), missing_params, unknown_params, errors, ...about };
}

function unknownId(id: string): AlmanacError {
  return new AlmanacError("NOT_FOUND", `unknown query id "${quoted(id)}"; use query_library_search to find valid ids`);
}

const UNAVAILABLE_MESSAGE = "the query library store is unavailable right now and this entry is not in the bundled snapshot; try again shortly";

/**
 * The entry from D1 + KV, or — when either fails — from the bundled snapshot.
 * A user's entry is never answered with the default library's version of the
 * same id: the snapshot only stands in for entries the default library owns.
 */
async function loadEntry(env: LibraryReadBindings, id: string): Promise<{ entry: LibraryEntry; tier: SourceTier }> {
  let stored;
  try {
    stored = await findStoredEntry(env.DB, id);
  } catch (error) {
    console.warn("query library index unavailable; trying the bundled snapshot", error);
    return fromSnapshot(id, error);
  }
  if (!stored) throw unknownId(id);
  try {
    const body = await readEntryBody(env.TEMPLATES, stored.bodyKey);
    return { entry: { ...stored.metadata, ...body }, tier: "primary" };
  } catch (error) {
    if (!(error instanceof TemplateStoreError)) throw error;
    console.warn("query library template unavailable; trying the bundled snapshot", error);
    if (stored.library !== DEFAULT_LIBRARY) throw new AlmanacError("UNAVAILABLE", UNAVAILABLE_MESSAGE, error);
    return fromSnapshot(id, error);
  }
}

function fromSnapshot(id: string, cause: unknown): { entry: LibraryEntry; tier: "snapshot" } {
  const entry = snapshotEntry(id);
  if (!entry) throw new AlmanacError("UNAVAILABLE", UNAVAILABLE_MESSAGE, cause);
  return { entry, tier: "snapshot" };
}
