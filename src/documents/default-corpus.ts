/**
 * The default corpus: Almanac's own documentation in corpus/docs, which
 * `npm start` loads under this base URI and keeps in step (it prunes pages
 * the folder no longer has, so the base URI is reserved for it).
 */
export const DEFAULT_CORPUS = { dir: "corpus/docs", baseUri: "https://almanac.dev/docs", dataSource: "almanac.dev" } as const;
