// The default corpus, bundled into the test Worker by Vite (workerd has no file system).
import { env } from "cloudflare:test";
import { DEFAULT_CORPUS } from "../../src/documents/default-corpus.ts";
import { prepareSite, siteFor, type PreparedDocument } from "../../src/documents/ingest/prepare-pages.ts";
import { syncDocuments } from "../../src/documents/ingest/write-corpus.ts";

const pages = import.meta.glob<string>("../../corpus/docs/**/*.md", { query: "?raw", import: "default", eager: true });

/** Every page of corpus/docs prepared as `npm start` prepares it. */
export async function preparedCorpus(): Promise<PreparedDocument[]> {
  const files = Object.entries(pages).map(([path, text]) => ({ path: path.replace("../../corpus/docs/", ""), text }));
  return (await prepareSite(files, siteFor(DEFAULT_CORPUS.baseUri))).documents;
}

/** Loads the default corpus into this test's D1. */
export async function loadCorpus(): Promise<PreparedDocument[]> {
  const documents = await preparedCorpus();
  await syncDocuments(env.DB, DEFAULT_CORPUS.baseUri, documents, { prune: false });
  return documents;
}

/** `documents/almanac.dev/docs/<path>` */
export const corpusName = (path: string) => `documents/almanac.dev/docs/${path}`;
