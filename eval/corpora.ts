// Loading a question set's corpora into a scratch database, as both eval commands do (Node only).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_CORPUS } from "../src/documents/default-corpus.ts";
import { siteFor } from "../src/documents/ingest/prepare-pages.ts";
import { ingestDocsFolder } from "../cli/ingest-docs.ts";
import { applyLocalMigrations, withLocalEnv } from "../cli/local-env.ts";
import type { EvalCorpus } from "./questions.ts";

/**
 * Runs `work` on a fresh local database holding `corpora` and, as `npm start`
 * serves them, the default corpus beside them, ingested with the real
 * ingestion code; the database is deleted afterwards.
 */
export async function withCorpora<T>(corpora: readonly EvalCorpus[], work: (env: Env) => Promise<T>): Promise<T> {
  const stateDir = await mkdtemp(join(tmpdir(), "almanac-eval-"));
  try {
    applyLocalMigrations(stateDir);
    return await withLocalEnv(stateDir, async (env) => {
      const all = corpora.some((corpus) => corpus.baseUri === DEFAULT_CORPUS.baseUri)
        ? corpora
        : [...corpora, { dir: DEFAULT_CORPUS.dir, baseUri: DEFAULT_CORPUS.baseUri }];
      for (const corpus of all) {
        const started = performance.now();
        const result = await ingestDocsFolder(env.DB, corpus.dir, siteFor(corpus.baseUri), { prune: false });
        console.error(`eval: ingested ${corpus.dir} as ${corpus.baseUri}: ${result.added.length} pages in ${((performance.now() - started) / 1000).toFixed(1)} s`);
      }
      return work(env);
    });
  } finally {
    await rm(stateDir, { recursive: true, force: true });
  }
}
