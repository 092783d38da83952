// Folder listing and reading shared by the ingestion commands.
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import type { Dirent } from "node:fs";
import { decodeText } from "../src/text/utf8.ts";

/** A folder's files with a page's name, and the entries with such a name that are not regular files. */
export interface FolderListing {
  files: string[];
  /** Symlinks (never followed: they may lead outside the folder), FIFOs, sockets, devices. */
  skipped: { path: string; reason: string }[];
}

/**
 * Every file under `dir` (recursively) whose name matches `extensionPattern`,
 * as paths relative to `dir` with "/" separators on every platform, sorted,
 * so a run's order and the ids derived from paths never depend on the OS;
 * entries with such a name that are not regular files are listed as skipped.
 *
 * @example await listFolder("corpus/docs", PAGE_EXTENSION) // { files: ["index.md", …], skipped: [] }
 */
export async function listFolder(dir: string, extensionPattern: RegExp): Promise<FolderListing> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const pathOf = (entry: Dirent) => relative(dir, join(entry.parentPath, entry.name)).split("\\").join("/");
  const named = entries.filter((entry) => extensionPattern.test(entry.name) && !entry.isDirectory());
  return {
    files: named.filter((entry) => entry.isFile()).map(pathOf).sort(),
    skipped: named
      .filter((entry) => !entry.isFile())
      .map((entry) => ({ path: pathOf(entry), reason: `not a regular file (${kindOf(entry)}), not read` }))
      .sort((a, b) => (a.path < b.path ? -1 : 1)),
  };
}

/** The files of listFolder alone. */
export async function listFiles(dir: string, extensionPattern: RegExp): Promise<string[]> {
  return (await listFolder(dir, extensionPattern)).files;
}

function kindOf(entry: Dirent): string {
  if (entry.isSymbolicLink()) return "a symbolic link";
  if (entry.isFIFO()) return "a FIFO";
  if (entry.isSocket()) return "a socket";
  if (entry.isBlockDevice() || entry.isCharacterDevice()) return "a device";
  return "not a file";
}

/**
 * The UTF-8 text of each file at `paths` (relative to `dir`, as listFiles
 * gives them), in the same order. All or nothing: binary files and files
 * that are not valid UTF-8 are refused together, by name.
 *
 * @example await readFiles("corpus/docs", ["index.md"]) // [{ path: "index.md", text: "# Almanac…" }]
 */
export async function readFiles(dir: string, paths: readonly string[]): Promise<{ path: string; text: string }[]> {
  const read = await Promise.all(paths.map(async (path) => ({ path, decoded: decodeText(await readFile(join(dir, path))) })));
  const problems = read.flatMap(({ path, decoded }) => ("problem" in decoded ? [`${path} ${decoded.problem}`] : []));
  if (problems.length > 0) throw new Error(`nothing was ingested; these files are not text:\n  ${problems.join("\n  ")}`);
  return read.map(({ path, decoded }) => ({ path, text: "text" in decoded ? decoded.text : "" }));
}
