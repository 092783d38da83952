// npm run ingest -- library <dir> --remote: the same plan as a local ingestion,
// carried out with wrangler against the deployed D1 database and KV namespace.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { prepareLibrary } from "../src/library/parse-entry.ts";
import { hashEntry, planLibrarySync, type ExistingEntry, type PlannedStatement } from "../src/library/store.ts";
import { pruneAllowed, readLibraryFolder, unresolvedRelated, type LibraryIngestResult } from "./ingest-library.ts";

/**
 * Where wrangler writes: `["--remote"]` for the deployed resources, or
 * `["--local", "--persist-to", dir]`, which runs this exact path against
 * local state (how it is tested without a Cloudflare account).
 */
export type WranglerTarget = string[];

function runWrangler(args: string[]): string {
  const result = spawnSync(process.execPath, [join("node_modules", "wrangler", "bin", "wrangler.js"), ...args], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`wrangler ${args.slice(0, 3).join(" ")} failed:\n${result.stdout}${result.stderr}`);
  return result.stdout;
}

/**
 * A statement with its parameters written in as SQL literals. Only for the
 * file `wrangler d1 execute --file` runs: that command takes no bound
 * parameters. Values are our own planned strings and numbers; strings are
 * quoted with `'` doubled, the one escape SQLite string literals have.
 */
export function inlineStatement({ sql, params }: PlannedStatement): string {
  const inlined = sql.replace(/\?(\d+)/g, (_, index: string) => {
    const value = params[Number(index) - 1];
    if (typeof value === "number") return String(value);
    if (typeof value === "string") return `'${value.replaceAll("'", "''")}'`;
    throw new Error(`statement parameter ?${index} is missing`);
  });
  return `${inlined};`;
}

function existingEntries(target: WranglerTarget): ExistingEntry[] {
  const output = runWrangler(["d1", "execute", "DB", ...target, "--json", "--command", "SELECT id, library, body_key, content_hash FROM library_entries"]);
  try {
    const parsed = JSON.parse(output) as { results?: ExistingEntry[] }[];
    return parsed[0]?.results ?? [];
  } catch {
    throw new Error(`could not read the library index; has the 0002_query_library migration been applied? wrangler said:\n${output}`);
  }
}

/**
 * Ingests `dir` into `library` through wrangler, in the order that keeps
 * every entry whole: new bodies (`kv bulk put`), then the rows (one SQL file;
 * each entry is one statement, so a row only ever names a body already
 * written), then the bodies no row names any more (`kv bulk delete`).
 */
export async function ingestLibraryWithWrangler(dir: string, library: string, options: { prune: boolean }, target: WranglerTarget): Promise<LibraryIngestResult> {
  const { entries, refused } = prepareLibrary(await readLibraryFolder(dir));
  const existing = existingEntries(target);
  const hashed = await Promise.all(entries.map(async (entry) => ({ entry, hash: await hashEntry(entry) })));
  const prune = pruneAllowed(options, refused);
  const plan = planLibrarySync(existing, library, hashed, { prune, now: new Date() });

  const work = mkdtempSync(join(tmpdir(), "almanac-library-"));
  try {
    if (plan.puts.length > 0) {
      const file = join(work, "bodies.json");
      writeFileSync(file, JSON.stringify(plan.puts));
      runWrangler(["kv", "bulk", "put", file, "--binding", "TEMPLATES", ...target]);
    }
    if (plan.statements.length > 0) {
      const file = join(work, "entries.sql");
      writeFileSync(file, `${plan.statements.map(inlineStatement).join("\n")}\n`);
      runWrangler(["d1", "execute", "DB", ...target, "--yes", "--file", file]);
    }
    if (plan.deletes.length > 0) {
      const file = join(work, "stale-bodies.json");
      writeFileSync(file, JSON.stringify(plan.deletes));
      runWrangler(["kv", "bulk", "delete", file, "--binding", "TEMPLATES", ...target, "--force"]);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const known = new Set([...existing.map((row) => row.id), ...entries.map((entry) => entry.id)]);
  for (const id of plan.report.removed) known.delete(id);
  return { ...plan.report, refused, pruneSkipped: options.prune && !prune, unresolvedRelated: unresolvedRelated(entries, known) };
}
