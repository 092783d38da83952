/** The longest document name accepted anywhere (SPEC 2.2). */
export const MAX_DOCUMENT_NAME_LENGTH = 500;

const NAME_PREFIX = "documents/";

/** The file extensions of ingestible pages, any case. */
export const PAGE_EXTENSION = /\.(md|mdx|markdown)$/i;

/**
 * The resource name of the page at `uri`: "documents/" + the uri without its scheme.
 *
 * @example documentNameForUri("https://dart.dev/language/async") // "documents/dart.dev/language/async"
 */
export function documentNameForUri(uri: string): string {
  return NAME_PREFIX + uri.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "");
}

/** Why `name` is not a well-formed document name, or null when it is. */
export function documentNameProblem(name: string): string | null {
  if (name.length > MAX_DOCUMENT_NAME_LENGTH) {
    return `is ${name.length} characters long; names are at most ${MAX_DOCUMENT_NAME_LENGTH}`;
  }
  if (!name.startsWith(NAME_PREFIX) || name.length === NAME_PREFIX.length) {
    return 'must have the form "documents/{host}/{path}", as in the parent of a search_documents result';
  }
  if (/\s/.test(name)) return "must not contain whitespace";
  return null;
}

/** Removes a trailing slash so "https://x.dev/docs/" and "https://x.dev/docs" are one base. */
export function normalizeBaseUri(baseUri: string): string {
  return baseUri.replace(/\/+$/, "");
}

/**
 * The uri of a page given its path relative to the ingested folder: the
 * extension is dropped and `index` names its folder, as static-site generators do.
 * `.` and `..` segments are dropped, never resolved: a page's name stays
 * under its base URI whatever its path holds (a file named `...md`, a link's
 * decoded `%2F..%2F`).
 *
 * @example pageUri("https://dart.dev", "language/index.md") // "https://dart.dev/language"
 */
export function pageUri(baseUri: string, relativePath: string): string {
  const withoutExtension = relativePath.replace(/\\/g, "/").replace(PAGE_EXTENSION, "");
  const segments = withoutExtension.split("/").filter((segment) => segment !== "" && segment !== "." && segment !== "..");
  if (segments[segments.length - 1] === "index") segments.pop();
  const base = normalizeBaseUri(baseUri);
  // File names may hold spaces, "?" or "#": percent-encode them so the uri is
  // a real URL and the document name has no whitespace (a fetchable name).
  return segments.length === 0 ? base : `${base}/${segments.map(encodeURIComponent).join("/")}`;
}
