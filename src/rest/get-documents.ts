// GET /v1/{name=documents/**} and GET /v1/documents:batchGet: whole pages,
// from the same store and with the same all-or-nothing NOT_FOUND as get_documents.
import { readSession } from "../d1/sessions.ts";
import type { Context } from "hono";
import { getDocuments, MAX_NAMES_PER_GET } from "../documents/read/get-documents.ts";
import { documentNameProblem } from "../documents/names.ts";
import type { StoredDocument } from "../documents/document.ts";
import { AlmanacError } from "../errors.ts";
import { optionalValue, readParameters, type RestMethod } from "./parameters.ts";
import { DEFAULT_GET_VIEW, documentMessage, documentView } from "./resources.ts";
import { requireWithinCeiling } from "./response-ceiling.ts";
import { respond } from "./respond.ts";

/** developerknowledge.documents.get: the name is the path, so only `view` is a query parameter. */
const GET_DOCUMENT: RestMethod = { id: "developerknowledge.documents.get", parameters: ["view"] };

/** developerknowledge.documents.batchGet: `names` repeats, once per document. */
const BATCH_GET_DOCUMENTS: RestMethod = {
  id: "developerknowledge.documents.batchGet",
  parameters: ["names", "view"],
  repeated: ["names"],
};

/** The path after /v1/ is the name, percent-decoded once (Google's client encodes each segment). */
function nameFromPath(url: URL): string {
  const encoded = url.pathname.slice("/v1/".length);
  try {
    return decodeURIComponent(encoded);
  } catch {
    throw new AlmanacError("INVALID_ARGUMENT", `the document name in the path "${encoded.slice(0, 80)}" is not valid percent-encoding`);
  }
}

/** One page, in the view asked for (CONTENT by default). */
export async function getDocument(c: Context<{ Bindings: Env }>): Promise<Response> {
  const url = new URL(c.req.url);
  const { parameters, system } = readParameters(url, GET_DOCUMENT);
  const view = documentView(optionalValue(parameters, "view"), DEFAULT_GET_VIEW);
  const name = nameFromPath(url);
  const problem = documentNameProblem(name);
  if (problem) throw new AlmanacError("INVALID_ARGUMENT", `name "${name.slice(0, 80)}" ${problem}`);
  // getDocuments answers one page per name, or throws.
  const [document] = (await getDocuments(readSession(c.env.DB), [name], c.get("viewer"))) as [StoredDocument];
  return respond(c, system, documentMessage(document, view));
}

/**
 * 1–20 pages in the order named; any unknown name fails the call, naming
 * every missing one. A repeated name is refused: Google returns the pages in
 * the order of `names`, one per name, and a page asked for twenty times
 * would be twenty copies in one response.
 */
export async function batchGetDocuments(c: Context<{ Bindings: Env }>): Promise<Response> {
  const { parameters, system } = readParameters(new URL(c.req.url), BATCH_GET_DOCUMENTS);
  const view = documentView(optionalValue(parameters, "view"), DEFAULT_GET_VIEW);
  const names = parameters.get("names") ?? [];
  if (names.length === 0) {
    throw new AlmanacError("INVALID_ARGUMENT", "names is required: give 1–20 document names as names=documents/…&names=documents/… (the parent of a search result)");
  }
  if (names.length > MAX_NAMES_PER_GET) {
    throw new AlmanacError("INVALID_ARGUMENT", `names lists ${names.length} documents; at most ${MAX_NAMES_PER_GET} per call, so split the request`);
  }
  const repeated = [...new Set(names.filter((name, index) => names.indexOf(name) !== index))];
  if (repeated.length > 0) {
    throw new AlmanacError("INVALID_ARGUMENT", `names repeats ${repeated.map((name) => `"${name.slice(0, 200)}"`).join(", ")}; name each document once`);
  }
  const db = readSession(c.env.DB);
  // The BASIC view carries no content: nothing to weigh against the ceiling.
  // Hidden pages weigh nothing here, as missing ones: the NOT_FOUND that follows is the same for both.
  if (view !== "DOCUMENT_VIEW_BASIC") await requireWithinCeiling(db, names, c.get("viewer"));
  const documents = await getDocuments(db, names, c.get("viewer"));
  return respond(c, system, { documents: documents.map((document) => documentMessage(document, view)) });
}
