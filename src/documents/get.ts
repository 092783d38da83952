import { AlmanacError } from "../errors.ts";
import { documentNameProblem } from "./names.ts";
import { findDocuments, type StoredDocument } from "./store.ts";

/** Google's batch get takes at most 20 names per call. */
export const MAX_NAMES_PER_GET = 20;

/**
 * The pages named, in the order asked (a repeated name is returned again).
 * All or nothing: any unknown name fails the whole call, naming every missing one.
 * How many names may be asked for is the tool schema's rule (1–MAX_NAMES_PER_GET).
 */
export async function getDocuments(db: D1Database, names: readonly string[]): Promise<StoredDocument[]> {
  names.forEach((name, index) => {
    const problem = documentNameProblem(name);
    if (problem) throw new AlmanacError("INVALID_ARGUMENT", `names[${index}] "${name.slice(0, 80)}" ${problem}`);
  });
  const found = await findDocuments(db, names);
  const missing = [...new Set(names.filter((name) => !found.has(name)))];
  if (missing.length > 0) {
    throw new AlmanacError(
      "NOT_FOUND",
      `no document named ${missing.map((name) => `"${name}"`).join(", ")}; use search_documents to find valid names (the parent field of each result)`,
    );
  }
  return names.map((name) => found.get(name) as StoredDocument);
}
