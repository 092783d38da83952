// The default corpus, bundled into the test Worker by Vite (workerd has no file system).
import { env } from "cloudflare:test";
import { prepareDocument, siteFor, type PreparedDocument } from "../../src/documents/ingest.ts";
import { syncDocuments } from "../../src/documents/store.ts";

const pages = import.meta.glob<string>("../../corpus/docs/**/*.md", { query: "?raw", import: "default", eager: true });

/** The default corpus's base URI, as `npm start` ingests it. */
export const CORPUS_BASE_URI = "https://almanac.dev/docs";

/** Every page of corpus/docs prepared as `npm start` prepares it. */
export async function preparedCorpus(): Promise<PreparedDocument[]> {
  const site = siteFor(CORPUS_BASE_URI);
  const documents = await Promise.all(
    Object.entries(pages).map(([path, text]) => prepareDocument(path.replace("../../corpus/docs/", ""), text, site)),
  );
  return documents.filter((doc): doc is PreparedDocument => doc !== null);
}

/** Loads the default corpus into this test's D1. */
export async function loadCorpus(): Promise<PreparedDocument[]> {
  const documents = await preparedCorpus();
  await syncDocuments(env.DB, CORPUS_BASE_URI, documents, { prune: false });
  return documents;
}

/** `documents/almanac.dev/docs/<path>` */
export const corpusName = (path: string) => `documents/almanac.dev/docs/${path}`;
