// Loads a folder of StackQL query-library entries with the Worker's own parser and storage code.
import { describeRefusals, prepareLibrary, type RefusedFile } from "../src/library/parse-entry.ts";
import type { LibraryEntry } from "../src/library/entry.ts";
import { DEFAULT_LIBRARY, syncLibrary, syncLibraryWithIds, type LibraryBindings, type LibrarySyncReport } from "../src/library/store.ts";
import { listFiles, readFiles } from "./files.ts";
import { describeSync } from "./report.ts";
import { UsageError } from "./run-cli.ts";

/** What a library ingestion did, what it refused and which related ids point nowhere. */
export interface LibraryIngestResult extends LibrarySyncReport {
  refused: RefusedFile[];
  /** --prune is skipped when files were refused: a wrong folder or one broken file must not delete entries. */
  pruneSkipped: boolean;
  unresolvedRelated: { id: string; related: string }[];
}

/** Every `.md` file under `dir`, its path relative to `dir` with "/" separators (the entry id plus ".md"). */
export async function readLibraryFolder(dir: string): Promise<{ path: string; text: string }[]> {
  const paths = await listFiles(dir, /\.md$/);
  if (paths.length === 0) throw new Error(`${dir} has no .md entry files; give the folder that holds the <family>/ folders`);
  return readFiles(dir, paths);
}

/** Prune only after a clean validation: a refused file keeps its previous version, and a wrong folder deletes nothing. */
function pruneAllowed(options: { prune: boolean }, refused: readonly RefusedFile[]): boolean {
  return options.prune && refused.length === 0;
}

/**
 * Ingests every entry under `dir` into `library`. Invalid files are refused
 * and reported, the valid ones are synced.
 */
export async function ingestLibraryFolder(bindings: LibraryBindings, dir: string, library: string, options: { prune: boolean }): Promise<LibraryIngestResult> {
  const { entries, refused } = prepareLibrary(await readLibraryFolder(dir));
  const prune = pruneAllowed(options, refused);
  const { report, ids } = await syncLibraryWithIds(bindings, library, entries, { prune });
  return { ...report, refused, pruneSkipped: options.prune && !prune, unresolvedRelated: unresolvedRelated(entries, ids) };
}

/** StackQL requires related ids to resolve; entries copied from other versions often do not, so this warns rather than refuses. */
function unresolvedRelated(entries: readonly { id: string; related: string[] }[], known: ReadonlySet<string>): { id: string; related: string }[] {
  return entries.flatMap((entry) => entry.related.filter((related) => !known.has(related)).map((related) => ({ id: entry.id, related })));
}

/** Lines a person can read: what changed, what was refused and why, and warnings. */
export function describeLibraryIngest(dir: string, library: string, result: LibraryIngestResult): string[] {
  const parts = [describeSync(result)];
  if (result.kept.length > 0) parts.push(`${result.kept.length} left to the library that owns them (${result.kept.join(", ")})`);
  if (result.refused.length > 0) parts.push(`${result.refused.length} refused`);
  const lines = [`library "${library}": ${parts.join(", ")}`];
  if (result.pruneSkipped) lines.push("not pruned: nothing is removed while files are refused");
  for (const warning of result.unresolvedRelated) lines.push(`warning: ${warning.id}: related id ${warning.related} is not in the library`);
  if (result.refused.length > 0) {
    lines.push("refused (not served; fix and run again):", ...describeRefusals(result.refused, `${dir.replace(/\/+$/, "")}/`).map((line) => `  ${line}`));
  }
  return lines;
}

/** The library `npm run ingest -- library` writes to when no --library is given. */
export const USER_LIBRARY = "user";

/** A user library name: a short slug, and never the default library's (only `npm start` writes that). */
export function checkLibraryName(name: string): string {
  if (!/^[a-z0-9][a-z0-9_-]{0,63}$/.test(name)) throw new UsageError(`--library "${name}" must be a short lower-case name (letters, digits, "_" and "-")`);
  if (name === DEFAULT_LIBRARY) throw new UsageError(`--library "${DEFAULT_LIBRARY}" is reserved for the default library that npm start loads`);
  return name;
}

/** `npm start`: (re)writes the ids the default library owns from corpus/library; a user's entries are never touched. */
export async function loadDefaultLibrary(bindings: LibraryBindings, entries: readonly LibraryEntry[]): Promise<string> {
  const report = await syncLibrary(bindings, DEFAULT_LIBRARY, entries, { prune: true });
  const kept = report.kept.length > 0 ? `, ${report.kept.length} left to user libraries` : "";
  return `default query library: ${describeSync(report)}${kept}`;
}
