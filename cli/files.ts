// Folder listing shared by the ingestion commands.
import { readdir } from "node:fs/promises";
import { join, relative } from "node:path";

/**
 * Every file under `dir` (recursively) whose name matches `extensionPattern`,
 * as paths relative to `dir` with "/" separators on every platform, sorted,
 * so a run's order and the ids derived from paths never depend on the OS.
 *
 * @example await listFiles("corpus/docs", /\.(md|mdx|markdown)$/i) // ["index.md", "tools/get-documents.md", …]
 */
export async function listFiles(dir: string, extensionPattern: RegExp): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && extensionPattern.test(entry.name))
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split("\\").join("/"))
    .sort();
}
