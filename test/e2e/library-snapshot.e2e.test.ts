// wrangler's build step (wrangler.toml [build]) runs `node cli/library-snapshot.ts` at every dev
// start and deploy. It rebuilds the default library's snapshot only when the entry files or the
// code that parses them changed, which it tells by a fingerprint the snapshot records. Run here in
// a copy of the files it reads, so the project's own snapshot is never touched while servers run.
import { spawnSync } from "node:child_process";
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const project = mkdtempSync(join(tmpdir(), "almanac-snapshot-"));
for (const dir of ["cli", "src", "corpus/library"]) cpSync(dir, join(project, dir), { recursive: true, filter: (path) => !path.includes("/generated/") });
cpSync("package.json", join(project, "package.json"));
symlinkSync(resolve("node_modules"), join(project, "node_modules"));

afterAll(() => {
  rmSync(project, { recursive: true, force: true });
});

function buildStep(): string {
  const run = spawnSync(process.execPath, ["cli/library-snapshot.ts"], { cwd: project, encoding: "utf8" });
  expect(run.status, run.stderr).toBe(0);
  return run.stdout.trim();
}

const SNAPSHOT = "src/generated/default-library.ts";

describe("the library snapshot's build step", () => {
  it("writes the snapshot once, then leaves it alone until an entry or its parser changes", () => {
    expect(buildStep()).toMatch(/^src\/generated\/default-library\.ts: \d+ entries, updated$/);
    const written = readFileSync(join(project, SNAPSHOT), "utf8");
    expect(buildStep()).toBe("src/generated/default-library.ts: already up to date (corpus/library and its parser unchanged)");

    appendFileSync(join(project, "corpus/library/cloudflare/r2/buckets-list.md"), "\n");
    expect(buildStep()).toMatch(/entries, updated$/);
    expect(buildStep()).toMatch(/already up to date/);

    appendFileSync(join(project, "src/markdown/page.ts"), "\n");
    expect(buildStep()).toMatch(/entries, updated$/);
    // The entries themselves did not change: only the fingerprint line did.
    const rewritten = readFileSync(join(project, SNAPSHOT), "utf8");
    expect(rewritten.split("\n").filter((line) => !line.includes("fingerprint"))).toEqual(written.split("\n").filter((line) => !line.includes("fingerprint")));
    expect(rewritten).not.toBe(written);
  });
});
