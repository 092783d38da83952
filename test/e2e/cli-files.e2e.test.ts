// The folder listing both ingestion commands use (cli/files.ts), on Node's real
// file system: the CLI runs in Node, so this runs with the e2e suite, not in workerd.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { listFiles, listFolder, readFiles } from "../../cli/files.ts";

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

// Issue 24: skipped symlinks and FIFOs went unreported; random bytes and invalid UTF-8 were ingested.
describe("what a folder holds that is not a page", () => {
  const odd = mkdtempSync(join(tmpdir(), "almanac-odd-"));
  writeFileSync(join(odd, "page.md"), "# Page");
  writeFileSync(join(odd, "image.md"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00]));
  writeFileSync(join(odd, "latin1.md"), Buffer.from("caf\xe9", "latin1"));
  symlinkSync("/etc/passwd", join(odd, "link.md"));
  execFileSync("mkfifo", [join(odd, "pipe.md")]);
  afterAll(() => rmSync(odd, { recursive: true, force: true }));

  it("lists symlinks and FIFOs as skipped, never reading them", async () => {
    expect(await listFolder(odd, /\.md$/)).toEqual({
      files: ["image.md", "latin1.md", "page.md"],
      skipped: [
        { path: "link.md", reason: "not a regular file (a symbolic link), not read" },
        { path: "pipe.md", reason: "not a regular file (a FIFO), not read" },
      ],
    });
  });

  it("refuses binary and invalid UTF-8 files together, by name", async () => {
    await expect(readFiles(odd, ["image.md", "latin1.md", "page.md"])).rejects.toThrow(
      "nothing was ingested; these files are not text:\n  image.md is a binary file (a NUL byte at offset 8), not Markdown text\n  latin1.md is not valid UTF-8 (at byte 3); save it as UTF-8",
    );
    expect(await readFiles(odd, ["page.md"])).toEqual([{ path: "page.md", text: "# Page" }]);
  });
});
