// StackQL's own library files (test/fixtures/stackql-query-library, see its
// SOURCE.md) and Almanac's default library, bundled into the test Worker by
// Vite: workerd has no file system.
import { env } from "cloudflare:test";
import type { LibraryEntry } from "../../src/library/entry.ts";
import { prepareLibrary, type PreparedLibrary } from "../../src/library/parse-entry.ts";
import { DEFAULT_LIBRARY, syncLibrary } from "../../src/library/store.ts";

const QUERIES = "../fixtures/stackql-query-library/queries/";
const EMITTED = "../fixtures/stackql-query-library/emitted/queries/";
const DEFAULT = "../../corpus/library/";

const stackqlFiles = import.meta.glob<string>("../fixtures/stackql-query-library/queries/**/*.md", { query: "?raw", import: "default", eager: true });
const emittedFiles = import.meta.glob<EmittedEntry>("../fixtures/stackql-query-library/emitted/queries/**/*.json", { import: "default", eager: true });
const defaultFiles = import.meta.glob<string>("../../corpus/library/**/*.md", { query: "?raw", import: "default", eager: true });

/** The parts of StackQL's emitted per-query JSON the tests compare. */
interface EmittedEntry {
  id: string;
  template: string;
  notes?: string;
  mutation: boolean;
}

function relativeFiles(files: Record<string, string>, prefix: string): { path: string; text: string }[] {
  return Object.entries(files).map(([path, text]) => ({ path: path.slice(prefix.length), text }));
}

/** The 31 real entry files, paths relative to queries/ (`aws/s3/buckets-list.md`). */
function stackqlFixtureFiles(): { path: string; text: string }[] {
  return relativeFiles(stackqlFiles, QUERIES);
}

/** StackQL's emitted JSON for an id, if the fixtures have it. */
export function emittedEntry(id: string): EmittedEntry | undefined {
  return emittedFiles[`${EMITTED}${id}.json`];
}

/** The real library, validated as `npm run ingest -- library` validates it. */
export function preparedStackqlLibrary(): PreparedLibrary {
  return prepareLibrary(stackqlFixtureFiles());
}

/** corpus/library files, paths relative to it. */
export function defaultLibraryFiles(): { path: string; text: string }[] {
  return relativeFiles(defaultFiles, DEFAULT);
}

/** Loads the 29 valid real entries into this test's D1 and KV as the user library "stackql". */
export async function loadStackqlLibrary(): Promise<LibraryEntry[]> {
  const { entries } = preparedStackqlLibrary();
  await syncLibrary(env, "stackql", entries, { prune: false });
  return entries;
}

/** Loads the default library (corpus/library) as `npm start` does. */
export async function loadDefaultLibrary(): Promise<LibraryEntry[]> {
  const { entries } = prepareLibrary(defaultLibraryFiles());
  await syncLibrary(env, DEFAULT_LIBRARY, entries, { prune: true });
  return entries;
}
