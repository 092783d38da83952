import { AlmanacError } from "../../errors.ts";
import { quoted } from "../../text/quote.ts";
import { documentNameProblem } from "../names.ts";
import type { StoredDocument } from "../document.ts";
import { findDocuments } from "./stored-documents.ts";
import type { D1Reader } from "../../d1/sessions.ts";
import { publicViewer, type Viewer } from "../access/visibility.ts";

/** Google's batch get takes at most 20 names per call. */
export const MAX_NAMES_PER_GET = 20;

/**
 * The pages named, in the order asked (a repeated name is returned again).
 * All or nothing: any unknown name fails the whole call, naming every missing one.
 * How many names may be asked for is the tool schema's rule (1–MAX_NAMES_PER_GET).
 */
export async function getDocuments(db: D1Reader, names: readonly string[], viewer: Viewer = publicViewer()): Promise<StoredDocument[]> {
  const found = await requireDocuments(db, names, names, viewer);
  return names.map((name) => found.get(name) as StoredDocument);
}

/**
 * The stored pages named, keyed by name; every name must be well formed and
 * known, or the call fails (INVALID_ARGUMENT, or NOT_FOUND listing every
 * missing name). `asked[i]` is how the caller wrote `names[i]` (with its
 * `#section`, say), for the error messages. A page `viewer` may not see is
 * missing, with the very message of a page that does not exist.
 */
export async function requireDocuments(
  db: D1Reader,
  names: readonly string[],
  asked: readonly string[] = names,
  viewer: Viewer = publicViewer(),
): Promise<Map<string, StoredDocument>> {
  names.forEach((name, index) => {
    const problem = documentNameProblem(name);
    if (problem) throw new AlmanacError("INVALID_ARGUMENT", `names[${index}] "${(asked[index] ?? name).slice(0, 80)}" ${problem}`);
  });
  const found = await findDocuments(db, names, viewer);
  const missing = [...new Set(names.filter((name) => !found.has(name)))];
  if (missing.length > 0) {
    throw new AlmanacError(
      "NOT_FOUND",
      `no document named ${missing.map((name) => `"${quoted(name)}"`).join(", ")}; use search_documents to find valid names (the parent field of each result)`,
    );
  }
  return found;
}
