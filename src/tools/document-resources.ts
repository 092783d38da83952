// Documents as MCP resources (SPEC 1): every page is a read-only resource at
// its own uri, so a person recognises what a client shows. Transport-free,
// like the tools: src/mcp serves these to both protocol eras.
import { quoted } from "../text/quote.ts";
import { readOnce } from "../d1/sessions.ts";
import { AlmanacError } from "../errors.ts";
import { MAX_DOCUMENT_NAME_LENGTH, documentNameForUri } from "../documents/names.ts";
import { documentNamesWithPrefix, findDocuments, listDocuments } from "../documents/read/stored-documents.ts";
import { publicViewer, type Viewer } from "../documents/access/visibility.ts";

/** The Markdown media type of every document resource. */
const DOCUMENT_MIME_TYPE = "text/markdown";

/**
 * The template that addresses any page: its uri, whose `path` is the page's
 * document name without "documents/" (so completion offers stored names).
 */
export const DOCUMENT_TEMPLATE = {
  uriTemplate: "https://{+path}",
  name: "document",
  title: "Documentation page",
  description:
    "A page of the corpus as Markdown, at its own uri: path is host and path, e.g. dart.dev/language/async (the document name without documents/). Completion offers the stored pages by prefix.",
  mimeType: DOCUMENT_MIME_TYPE,
} as const;

/** Resources per resources/list page: a page of listings stays well inside a result budget. */
export const RESOURCES_PER_PAGE = 100;

/** The most values one completion returns (the MCP limit). */
const MAX_COMPLETION_VALUES = 100;

/** One listed document, in MCP's Resource shape (type aliases, which the SDKs' index-signature result types accept). */
type DocumentResource = {
  uri: string;
  name: string;
  title: string;
  description?: string;
  mimeType: string;
  size: number;
  annotations: { lastModified: string };
};

/** The text of one document, in MCP's TextResourceContents shape. */
type DocumentResourceContents = {
  uri: string;
  mimeType: string;
  text: string;
  _meta: { title: string; name: string };
};

const CURSOR_PREFIX = "after:";

/**
 * One page of the corpus as resources, in document-name order (stable while
 * pages are added). The cursor is the last name listed, opaque to clients.
 *
 * @example await listDocumentResources(env.DB) // { resources: [{ uri: "https://almanac.dev/docs/…", … }], nextCursor: "…" }
 */
export async function listDocumentResources(db: D1Database, cursor?: string, viewer: Viewer = publicViewer()): Promise<{ resources: DocumentResource[]; nextCursor?: string }> {
  // A cursor is only a name to list after: one naming a hidden page lists what follows it, as any name would.
  const after = cursor === undefined ? "" : decodeCursor(cursor);
  const listing = await readOnce(db, (reader) => listDocuments(reader, after, RESOURCES_PER_PAGE, viewer));
  const resources = listing.documents.map(
    (document): DocumentResource => ({
      uri: document.uri,
      name: document.name,
      title: document.title,
      ...(document.description ? { description: document.description } : {}),
      mimeType: DOCUMENT_MIME_TYPE,
      size: document.contentLengthBytes,
      annotations: { lastModified: document.updateTime },
    }),
  );
  return listing.lastName === undefined ? { resources } : { resources, nextCursor: encodeCursor(listing.lastName) };
}

/**
 * The whole page at `uri` as Markdown. Any scheme finds the page with that
 * host and path (the document name is the uri without its scheme).
 * Unknown pages are NOT_FOUND, naming the uri.
 */
export async function readDocumentResource(db: D1Database, uri: string, viewer: Viewer = publicViewer()): Promise<DocumentResourceContents> {
  const name = uri.length <= MAX_DOCUMENT_NAME_LENGTH && /^[a-z][a-z0-9+.-]*:\/\/\S+$/i.test(uri) ? documentNameForUri(uri) : undefined;
  // A page `viewer` may not see is not found, with the message of a page that does not exist.
  const document = name === undefined ? undefined : (await readOnce(db, (reader) => findDocuments(reader, [name], viewer))).get(name);
  if (!document) {
    throw new AlmanacError(
      "NOT_FOUND",
      `no document at "${quoted(uri)}"; list resources (resources/list) or search with search_documents for the uris this server holds`,
      undefined,
      { data: { uri: quoted(uri) } },
    );
  }
  return {
    uri: document.uri,
    mimeType: DOCUMENT_MIME_TYPE,
    text: document.content,
    _meta: { title: document.title, name: document.name },
  };
}

/**
 * Completes the template's `path` from the stored names that start with
 * what the user typed, in name order.
 *
 * @example await completeDocumentPath(env.DB, "dart.dev/language/as") // { values: ["dart.dev/language/async"], total: 1, hasMore: false }
 */
export async function completeDocumentPath(db: D1Database, typed: string, viewer: Viewer = publicViewer()): Promise<{ values: string[]; hasMore: boolean }> {
  const prefix = `documents/${typed.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "")}`;
  if (prefix.length > MAX_DOCUMENT_NAME_LENGTH) return { values: [], hasMore: false };
  const names = await readOnce(db, (reader) => documentNamesWithPrefix(reader, prefix, MAX_COMPLETION_VALUES + 1, viewer));
  const values = names.slice(0, MAX_COMPLETION_VALUES).map((name) => name.slice("documents/".length));
  return { values, hasMore: names.length > MAX_COMPLETION_VALUES };
}

function encodeCursor(lastName: string): string {
  return btoa(String.fromCharCode(...new TextEncoder().encode(CURSOR_PREFIX + lastName)));
}

function decodeCursor(cursor: string): string {
  let decoded = "";
  try {
    decoded = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(Uint8Array.from(atob(cursor), (char) => char.charCodeAt(0)));
  } catch {
    // Not base64 or not UTF-8: falls through to the refusal below.
  }
  if (!decoded.startsWith(CURSOR_PREFIX)) {
    throw new AlmanacError("INVALID_ARGUMENT", "cursor is not one this server issued; pass the nextCursor of a previous resources/list result, or omit it");
  }
  return decoded.slice(CURSOR_PREFIX.length);
}
