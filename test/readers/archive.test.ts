// The repository-archive reader inside workerd: archives built here with a
// tiny ustar writer and the platform's CompressionStream, read back.
import { describe, expect, it } from "vitest";
import { ArchiveRefused, DEFAULT_ARCHIVE_LIMITS, readArchivePages } from "../../src/readers/archive/archive.ts";
import { prepareSite, siteFor } from "../../src/documents/ingest/prepare-pages.ts";
import { archiveStream, tarBlocks, tarHeader, type TestEntry } from "../support/tar-writer.ts";

const read = (entries: TestEntry[], options: Parameters<typeof readArchivePages>[1] = {}, gzip = true) =>
  readArchivePages(archiveStream(tarBlocks(entries), gzip), options);

const repo: TestEntry[] = [
  { path: "site-www-3f2a/", type: "5" },
  { path: "site-www-3f2a/README.md", body: "# The repository\n" },
  { path: "site-www-3f2a/src/content/index.md", body: "---\ntitle: Home\n---\nWelcome." },
  { path: "site-www-3f2a/src/content/language/async.md", body: "# Async\n\nFutures and streams." },
  { path: "site-www-3f2a/src/content/logo.png", body: new Uint8Array([0x89, 0x50, 0x4e, 0x47]) },
  { path: `site-www-3f2a/src/content/${"deep/".repeat(30)}page.md`, body: "# Deep\n\nA path past ustar's 100 bytes." },
];

describe("reading a repository archive", () => {
  it("strips GitHub's single top folder and keeps only Markdown pages, in path order", async () => {
    const read1 = await read(repo);
    expect(read1.topFolder).toBe("site-www-3f2a");
    expect(read1.pages.map((page) => page.path)).toEqual([
      "README.md",
      `src/content/${"deep/".repeat(30)}page.md`,
      "src/content/index.md",
      "src/content/language/async.md",
    ]);
    expect(read1.entries).toBe(6);
  });

  it("reads one folder with --path, paths relative to it, and gives prepareSite what a folder would", async () => {
    const { pages } = await read(repo, { path: "src/content/" });
    expect(pages.map((page) => page.path)).toEqual([`${"deep/".repeat(30)}page.md`, "index.md", "language/async.md"]);
    const { documents } = await prepareSite(pages, siteFor("https://dart.dev"));
    expect(documents.map((doc) => [doc.name, doc.title])).toEqual([
      [`documents/dart.dev/${"deep/".repeat(29)}deep/page`, "Deep"],
      ["documents/dart.dev", "Home"],
      ["documents/dart.dev/language/async", "Async"],
    ]);
  });

  it("reads a plain .tar as well, and keeps a top-level file's folder structure as is", async () => {
    const { pages, topFolder } = await read([{ path: "index.md", body: "# Hi" }, { path: "guide/a.md", body: "# A" }], {}, false);
    expect(topFolder).toBeUndefined();
    expect(pages.map((page) => page.path)).toEqual(["guide/a.md", "index.md"]);
  });

  it("keeps a byte-order mark and UTF-8 as a folder's file reads them", async () => {
    const { pages } = await read([{ path: "r/é.md", body: "\uFEFF# Été\n" }]);
    expect(pages).toEqual([{ path: "é.md", text: "\uFEFF# Été\n" }]);
  });

  it("reports links inside the archive without following them", async () => {
    const { pages, skipped } = await read([
      { path: "r/docs/real.md", body: "# Real" },
      { path: "r/docs/alias.md", type: "2", linkTarget: "real.md" },
      { path: "r/docs/copy.md", type: "1", linkTarget: "r/docs/real.md" },
    ]);
    expect(pages.map((page) => page.path)).toEqual(["docs/real.md"]);
    expect(skipped).toEqual([
      { path: "docs/alias.md", reason: "a symbolic link to real.md; links are not followed" },
      { path: "docs/copy.md", reason: "a hard link to r/docs/real.md; links are not followed" },
    ]);
  });

  it("skips a page over the page cap and says so", async () => {
    const limits = { ...DEFAULT_ARCHIVE_LIMITS, maxPageBytes: 1000 };
    const { pages, skipped } = await read([{ path: "r/big.md", body: "x".repeat(2000) }, { path: "r/small.md", body: "# Small" }], { limits });
    expect(pages.map((page) => page.path)).toEqual(["small.md"]);
    expect(skipped).toEqual([{ path: "big.md", reason: "2000 bytes, over the page cap of 1000 bytes" }]);
  });
});

describe("refusing hostile archives as a whole", () => {
  const refusal = (entries: TestEntry[], options = {}) => read(entries, options).then(() => "read", (error: unknown) => error);

  it("refuses an entry that climbs out with ..", async () => {
    const error = await refusal([{ path: "r/ok.md", body: "# ok" }, { path: "r/../../etc/evil.md", body: "# evil" }]);
    expect(error).toBeInstanceOf(ArchiveRefused);
    expect(String(error)).toContain("an entry that leaves its folder (r/../../etc/evil.md)");
  });

  it("refuses an absolute path", async () => {
    expect(String(await refusal([{ path: "/etc/passwd.md", body: "root" }]))).toContain("an absolute path (/etc/passwd.md)");
  });

  it("refuses a symbolic link pointing outside the archive", async () => {
    expect(String(await refusal([{ path: "r/docs/passwd.md", type: "2", linkTarget: "/etc/passwd" }]))).toContain("a symbolic link r/docs/passwd.md pointing outside it (to /etc/passwd)");
    expect(String(await refusal([{ path: "r/docs/up.md", type: "2", linkTarget: "../../../secret.md" }]))).toContain("pointing outside it");
  });

  it("refuses an archive whose next entry would pass the expansion cap, before reading its body", async () => {
    const limits = { ...DEFAULT_ARCHIVE_LIMITS, maxExpandedBytes: 1024 * 1024 };
    // The header claims 1 GiB; no body follows, so reading it would fail another way: the cap must come first.
    const blocks = [tarHeader("r/zeros.bin", 1024 ** 3)];
    const error = await readArchivePages(archiveStream(blocks), { limits }).catch((e: unknown) => e);
    expect(String(error)).toContain("the archive expands past 1.0 MiB (the expansion cap) at r/zeros.bin (1024 MiB)");
    expect(String(error)).toContain("nothing was written");
  });

  it("refuses many small entries once their sum passes the cap", async () => {
    const limits = { ...DEFAULT_ARCHIVE_LIMITS, maxExpandedBytes: 64 * 1024 };
    const entries = Array.from({ length: 100 }, (_, i) => ({ path: `r/${i}.bin`, body: new Uint8Array(1024) }));
    expect(String(await refusal(entries, { limits }))).toContain("expands past 65536 bytes (the expansion cap)");
  });

  it("refuses an archive expanding past the ratio cap inside one entry, before its end", async () => {
    const limits = { ...DEFAULT_ARCHIVE_LIMITS, ratioFloorBytes: 1024 * 1024, maxExpansionRatio: 50 };
    const error = await refusal([{ path: "r/zeros.bin", body: new Uint8Array(16 * 1024 * 1024) }, { path: "r/page.md", body: "# After" }], { limits });
    expect(String(error)).toMatch(/expands more than 50 times its compressed size \(.+ to over .+, the expansion-ratio cap\): a decompression bomb; nothing was written/);
  });

  it("refuses pages past the total pages cap", async () => {
    const limits = { ...DEFAULT_ARCHIVE_LIMITS, maxTotalPageBytes: 3000 };
    const entries = Array.from({ length: 5 }, (_, i) => ({ path: `r/${i}.md`, body: "x".repeat(1000) }));
    expect(String(await refusal(entries, { limits }))).toContain("pages pass 3000 bytes in total (the pages cap) at r/3.md");
  });

  it("says what is wrong with bytes that are not an archive", async () => {
    const notTar = new Response("<!doctype html><title>GitHub</title>".repeat(40)).body as ReadableStream<Uint8Array>;
    expect(String(await readArchivePages(notTar).catch((e: unknown) => e))).toContain("not a tar archive: the header at byte 0 fails its checksum");
    const cut = archiveStream([tarHeader("r/a.md", 5000), new Uint8Array(512)]);
    expect(String(await readArchivePages(cut).catch((e: unknown) => e))).toContain("the archive ends in the middle of an entry");
  });

  it("says why a gzip cut short cannot be read (in Node the platform gave an empty reason: issue 39)", async () => {
    const whole = new Uint8Array(await new Response(archiveStream(tarBlocks(repo), true)).arrayBuffer());
    const cut = new Response(whole.slice(0, Math.floor(whole.length / 2))).body as ReadableStream<Uint8Array>;
    const message = String(await readArchivePages(cut).catch((e: unknown) => e));
    expect(message).toMatch(/the archive could not be decompressed \(.+\); give a \.tar\.gz or \.tar file; nothing was written/);
    expect(message).not.toContain("decompressed ()");
  });

  it("refuses a --path that leaves the archive", async () => {
    expect(String(await refusal(repo, { path: "../x" }))).toContain('--path "../x" must be a folder inside the archive');
  });
});
