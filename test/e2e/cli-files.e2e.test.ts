// The folder listing both ingestion commands use (cli/files.ts), on Node's real
// file system: the CLI runs in Node, so this runs with the e2e suite, not in workerd.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { listFiles } from "../../cli/files.ts";

const dir = mkdtempSync(join(tmpdir(), "almanac-files-"));
for (const path of ["z.md", "guide/b.mdx", "guide/deep/a.MD", "notes.txt", "guide/image.png", "guide/empty/.keep"]) {
  mkdirSync(join(dir, path, ".."), { recursive: true });
  writeFileSync(join(dir, path), "x");
}

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("listFiles, shared by `ingest -- docs` and `ingest -- library`", () => {
  it("lists matching files in every subfolder, relative to the folder with / separators, sorted", async () => {
    expect(await listFiles(dir, /\.(md|mdx|markdown)$/i)).toEqual(["guide/b.mdx", "guide/deep/a.MD", "z.md"]);
  });

  it("applies the caller's pattern as given: the library's /\\.md$/ is case-sensitive", async () => {
    expect(await listFiles(dir, /\.md$/)).toEqual(["z.md"]);
  });

  it("gives the same paths for a folder named with a trailing slash", async () => {
    expect(await listFiles(`${dir}/`, /\.md$/)).toEqual(["z.md"]);
  });
});
