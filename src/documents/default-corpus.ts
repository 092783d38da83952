/**
 * The default corpus: Almanac's own documentation in corpus/docs, which
 * `npm start` loads under this base URI and keeps in step (it prunes pages
 * the folder no longer has, so the base URI is reserved for it).
 */
export const DEFAULT_CORPUS = { dir: "corpus/docs", baseUri: "https://almanac.dev/docs", dataSource: "almanac.dev" } as const;

/** Characters RFC 3986 calls unreserved: `%64` and `d` are the same path. */
const UNRESERVED_ESCAPE = /%(?:[46][1-9a-f]|[57][0-9a]|3[0-9]|2[de]|5f|7e)/gi;

/**
 * A base URI as the places it names compare: no scheme (a document name has
 * none), the host without a final dot, unreserved escapes decoded, runs of
 * slashes as one, no final slash.
 */
function comparableBase(baseUri: string): string {
  const url = new URL(baseUri);
  const host = url.hostname.replace(/\.$/, "") + (url.port ? `:${url.port}` : "");
  const path = url.pathname.replace(UNRESERVED_ESCAPE, (escape) => String.fromCharCode(Number.parseInt(escape.slice(1), 16))).replace(/\/{2,}/g, "/").replace(/\/$/, "");
  return `${host}${path}`;
}

/**
 * Why a user's ingestion may not write where it asks, or null: inside the
 * default corpus's base URI (`npm start` prunes it to match corpus/docs, so
 * pages put there would be deleted), written however (`almanac.dev.`,
 * `//docs`, `/%64ocs`), or filed under its data source.
 *
 * @example defaultCorpusConflict({ baseUri: "https://almanac.dev./docs/x", dataSource: "mine" }) // "--base-uri https://almanac.dev./docs/x is reserved for …"
 */
export function defaultCorpusConflict(site: { baseUri: string; dataSource: string }): string | null {
  const reserved = comparableBase(DEFAULT_CORPUS.baseUri);
  const asked = comparableBase(site.baseUri);
  if (asked === reserved || asked.startsWith(`${reserved}/`)) {
    return `--base-uri ${site.baseUri} is reserved for Almanac's own documentation, which npm start loads; use your documentation's own URL`;
  }
  if (site.dataSource.replace(/\.$/, "").toLowerCase() === DEFAULT_CORPUS.dataSource) {
    return `the data source ${site.dataSource} is reserved for Almanac's own documentation, which npm start loads; give --data-source a name of your own`;
  }
  return null;
}
