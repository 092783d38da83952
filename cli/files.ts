// Folder listing and reading shared by the ingestion commands.
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";

/**
 * Every file under `dir` (recursively) whose name matches `extensionPattern`,
 * as paths relative to `dir` with "/" separators on every platform, sorted,
 * so a run's order and the ids derived from paths never depend on the OS.
 *
 * @example await listFiles("corpus/docs", PAGE_EXTENSION) // ["index.md", "tools/get-documents.md", …]
 */
export async function listFiles(dir: string, extensionPattern: RegExp): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && extensionPattern.test(entry.name))
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split("\\").join("/"))
    .sort();
}

/**
 * The UTF-8 text of each file at `paths` (relative to `dir`, as listFiles gives them), in the same order.
 *
 * @example await readFiles("corpus/docs", ["index.md"]) // [{ path: "index.md", text: "# Almanac…" }]
 */
export async function readFiles(dir: string, paths: readonly string[]): Promise<{ path: string; text: string }[]> {
  return Promise.all(paths.map(async (path) => ({ path, text: await readFile(join(dir, path), "utf8") })));
}
