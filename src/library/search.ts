import { mutationsVisible, rankEntries, serverMode, type LibraryHit, type LibraryQuery } from "./scoring.ts";
import { librarySource, snapshotEntries, type LibraryConfig, type LibrarySource } from "./source.ts";
import { listSearchableEntries, type LibraryReadBindings } from "./store.ts";

/** StackQL's default number of hits. */
export const DEFAULT_LIMIT = 5;
/** More than this stops being a shortlist an agent can read. */
export const MAX_LIMIT = 20;

/** What an agent should do when the library has no good recipe (StackQL's advice on a miss). */
export const MISS_GUIDANCE = [
  "No vetted query in the library fits this intent well; author the query yourself.",
  "On your StackQL server, discover the right resource with the list and describe tools",
  "(list_services, list_resources, list_methods, describe_resource, describe_method),",
  "write the statement, validate it (validate_select_query for a SELECT), and only then execute it.",
].join(" ");

/** query_library_search's result (SPEC 3.1). */
export interface LibrarySearchResult extends LibrarySource {
  hits: LibraryHit[];
  miss: boolean;
  guidance?: string;
}

/** What query_library_search accepts; `limit` defaults to DEFAULT_LIMIT. */
type LibrarySearchInput = Omit<LibraryQuery, "limit"> & { limit?: number };

/**
 * Finds library entries for an intent. The index comes from D1; if D1 fails,
 * the bundled snapshot of the default library answers instead (`stale`).
 *
 * @example await searchQueryLibrary(env, { intent: "list all s3 buckets" })
 */
export async function searchQueryLibrary(env: LibraryReadBindings & LibraryConfig, input: LibrarySearchInput): Promise<LibrarySearchResult> {
  const mode = serverMode(env.SERVER_MODE);
  const query: LibraryQuery = { ...input, limit: input.limit ?? DEFAULT_LIMIT };
  let source = librarySource(env, "primary");
  let entries;
  try {
    entries = await listSearchableEntries(env.DB, mutationsVisible(query, mode));
  } catch (error) {
    console.warn("query library index unavailable; answering from the bundled snapshot", error);
    entries = snapshotEntries();
    source = librarySource(env, "snapshot");
  }
  const { hits, miss } = rankEntries(entries, query, mode);
  return { hits, miss, ...(miss && { guidance: MISS_GUIDANCE }), ...source };
}
