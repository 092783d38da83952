import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { chunkDocument, MAX_CHUNK_CHARS } from "../../src/documents/ingest/chunk-page.ts";
import { defaultCorpusConflict } from "../../src/documents/default-corpus.ts";
import { getDocuments } from "../../src/documents/read/get-documents.ts";
import { PageError, prepareDocument, prepareSite, siteFor, type PreparedDocument } from "../../src/documents/ingest/prepare-pages.ts";
import { documentNameForUri, pageUri } from "../../src/documents/names.ts";
import { findDocuments } from "../../src/documents/read/stored-documents.ts";
import { syncDocuments } from "../../src/documents/ingest/write-corpus.ts";
import { searchDocuments } from "../../src/documents/search/search-documents.ts";

const dart = siteFor("https://dart.dev");
const docs = siteFor("https://example.com/docs/");

async function page(path: string, body: string, site = dart): Promise<PreparedDocument> {
  const document = await prepareDocument(path, `---\ntitle: ${path}\ndescription: About ${path}.\n---\n${body}`, site);
  if (!document) throw new Error("expected a document");
  return document;
}

describe("names and uris", () => {
  it("derives uris from paths as static sites publish them", () => {
    expect(pageUri("https://dart.dev", "language/async.md")).toBe("https://dart.dev/language/async");
    expect(pageUri("https://dart.dev", "language/index.md")).toBe("https://dart.dev/language");
    expect(pageUri("https://example.com/docs/", "index.mdx")).toBe("https://example.com/docs");
    expect(documentNameForUri("https://dart.dev/language/async")).toBe("documents/dart.dev/language/async");
  });

  it("never gives a name that climbs out of its base URI: . and .. segments are dropped (issue 39, row 11)", () => {
    // A file named `...md` is the segment `..` once its extension is dropped.
    expect(pageUri("https://x.dev/docs", "guide/...md")).toBe("https://x.dev/docs/guide");
    expect(pageUri("https://x.dev/docs", "../../etc/passwd.md")).toBe("https://x.dev/docs/etc/passwd");
    expect(pageUri("https://x.dev/docs", "a\\..\\..\\b.md")).toBe("https://x.dev/docs/a/b");
    for (const path of ["guide/...md", "../x.md", "a/./../../b.md", "..", "...md"]) {
      const uri = pageUri("https://x.dev/docs", path);
      expect(new URL(uri).href.startsWith("https://x.dev/docs"), path).toBe(true);
      expect(documentNameForUri(uri).split("/"), path).not.toContain("..");
    }
  });

  it("refuses a base URI that is not http(s)", () => {
    expect(() => siteFor("dart.dev")).toThrow(/not a URL/);
    expect(() => siteFor("ftp://dart.dev")).toThrow(/https:\/\//);
    expect(docs).toEqual({ baseUri: "https://example.com/docs", dataSource: "example.com" });
  });
});

describe("the default corpus's place (issue 39)", () => {
  it("is refused to a user's ingestion however its base URI is written, and so is its data source", () => {
    for (const baseUri of ["https://almanac.dev/docs", "http://ALMANAC.dev./docs/guide", "https://almanac.dev//docs", "https://almanac.dev/%64ocs/x", "https://almanac.dev/docs/"]) {
      expect(defaultCorpusConflict({ baseUri, dataSource: "mine" }), baseUri).toMatch(/^--base-uri .+ is reserved for Almanac's own documentation/);
    }
    expect(defaultCorpusConflict({ baseUri: "https://docs.example.com", dataSource: "almanac.dev" })).toMatch(/^the data source almanac\.dev is reserved/);
    expect(defaultCorpusConflict({ baseUri: "https://almanac.dev/docsite", dataSource: "other" })).toBeNull();
    expect(defaultCorpusConflict({ baseUri: "https://docs.example.com/docs", dataSource: "docs.example.com" })).toBeNull();
  });
});

describe("preparing a page", () => {
  it("takes title and description from front matter and measures UTF-8 bytes", async () => {
    const doc = await prepareDocument("a/b.md", "---\ntitle: Héllo\ndescription: Greets.\n---\n# Héllo\n\nçà va\n", dart);
    expect(doc).toMatchObject({ name: "documents/dart.dev/a/b", title: "Héllo", description: "Greets.", dataSource: "dart.dev" });
    expect(doc?.contentLengthBytes).toBe(new TextEncoder().encode("# Héllo\n\nçà va").length);
  });

  it("falls back to the first heading, then the file name, for the title", async () => {
    expect((await prepareDocument("x.md", "# From heading\n\ntext", dart))?.title).toBe("From heading");
    expect((await prepareDocument("getting-started/index.md", "text only", dart))?.title).toBe("Getting started");
  });

  it("reports malformed front matter with the path, and skips empty pages", async () => {
    await expect(prepareDocument("bad.md", "---\ntitle: [unclosed\n---\nbody", dart)).rejects.toThrow(PageError);
    await expect(prepareDocument("bad.md", "---\ntitle: [unclosed\n---\nbody", dart)).rejects.toThrow(/^bad\.md: invalid front matter/);
    await expect(prepareDocument("num.md", "---\ntitle: 3\n---\nbody", dart)).rejects.toThrow(/"title" must be a string/);
    expect(await prepareDocument("empty.md", "---\ntitle: Empty\n---\n\n", dart)).toBeNull();
  });
});

describe("chunking", () => {
  /** A paragraph long enough to be a chunk of its own. */
  const prose = (word: string) => `${word} text`.repeat(40);

  it("splits at headings and carries the heading path", () => {
    const chunks = chunkDocument("Async", `${prose("Intro")}\n\n## Futures\n\n${prose("F")}\n\n### Errors\n\n${prose("E")}\n\n## Streams\n\nS text.`);
    expect(chunks.map((chunk) => [chunk.id, chunk.heading])).toEqual([
      ["intro", ""],
      ["futures", "Futures"],
      ["errors", "Futures > Errors"],
      ["streams", "Streams"],
    ]);
    expect(chunks[2]?.content).toBe(`Async > Futures > Errors\n\n${prose("E")}`);
  });

  it("reads a short section at the head of its first subsection, never as a chunk of its own", () => {
    // Node's module pages: the module heading holds only its stability line, then the Introduction.
    const body = "## Asynchronous context tracking\n\n> Stability: 2 - Stable\n\n### Introduction\n\nThese classes associate state.\n\n## Streams\n\nS text.";
    const chunks = chunkDocument("Async", body);
    expect(chunks.map((chunk) => chunk.content)).toEqual([
      "Async > Asynchronous context tracking > Introduction\n\n> Stability: 2 - Stable\n\nThese classes associate state.",
      "Async > Streams\n\nS text.",
    ]);
    expect(chunks.map((chunk) => chunk.id)).toEqual(["introduction", "streams"]);
  });

  it("names the page's title once when its first heading repeats it", () => {
    const chunks = chunkDocument("8.14. JSON Types", `## 8.14. JSON Types\n\n${prose("Intro")}\n\n### 8.14.6. Transforms\n\nT text.`);
    expect(chunks.map((chunk) => chunk.content.split("\n")[0])).toEqual(["8.14. JSON Types", "8.14. JSON Types > 8.14.6. Transforms"]);
  });

  it("never cuts a code block and never treats # inside code as a heading", () => {
    const code = "```sh\n# not a heading\n\necho hi\n```";
    const chunks = chunkDocument("T", `## Run\n\n${code}`);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]?.content).toContain(code);
  });

  it("splits long sections at paragraph breaks with unique ids", () => {
    const paragraph = "word ".repeat(100).trim();
    const chunks = chunkDocument("T", `## Long\n\n${Array.from({ length: 12 }, () => paragraph).join("\n\n")}`);
    expect(chunks.length).toBeGreaterThan(2);
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(chunks.length);
    for (const chunk of chunks) expect(chunk.content.length).toBeLessThanOrEqual(MAX_CHUNK_CHARS + 20);
  });

  it("keeps a short lead-in with the long table it introduces, and makes no chunk of a thematic break", () => {
    const table = ["| Version | Changes |", "| - | - |", ...Array.from({ length: 40 }, (_, i) => `| v${i}.0.0 | Changed thing number ${i} of the API. |`)].join("\n");
    const chunks = chunkDocument("Util", `## inspect\n\nHistory\n\n${table}\n\n---\n\n## Other\n\n---`);
    expect(chunks.map((chunk) => chunk.id)).toEqual(["inspect"]);
    expect(chunks[0]?.content).toBe(`Util > inspect\n\nHistory\n\n${table}`);
  });

  it("makes repeated heading anchors unique as GitHub does", () => {
    const ids = chunkDocument("T", "## Example\n\na\n\n## Example\n\nb").map((chunk) => chunk.id);
    expect(ids).toEqual(["example", "example-1"]);
  });

  // Regression: "Step", "Step", "Step 1" gave step-1 twice and broke the ingest on UNIQUE(document_name, chunk_id).
  it("never hands out an id twice when a heading's anchor equals a numbered repeat", () => {
    const ids = chunkDocument("T", "## Step\n\na\n\n## Step\n\nb\n\n## Step 1\n\nc").map((chunk) => chunk.id);
    expect(ids).toEqual(["step", "step-1", "step-1-1"]);
  });

  // Regression (issue 39): each repeat counted up from 1 again, so 10,000 "Step" headings took 6 s and 100,000 hours.
  it("numbers 100,000 repeated headings in one pass, skipping the numbers an explicit anchor took", () => {
    const body = `## Step {#step-2}\n\nfirst\n\n${Array.from({ length: 100_000 }, (_, index) => `## Step\n\nstep ${index}`).join("\n\n")}`;
    const ids = chunkDocument("T", body).map((chunk) => chunk.id);
    expect(ids.slice(0, 5)).toEqual(["step-2", "step", "step-1", "step-3", "step-4"]);
    expect(ids.at(-1)).toBe("step-100000");
    expect(new Set(ids).size).toBe(100_001);
  });
});

describe("syncing a folder into D1", () => {
  it("adds, keeps unchanged pages (and their updateTime), updates changed ones and prunes only its own base", async () => {
    const first = new Date("2026-01-01T00:00:00.000Z");
    const later = new Date("2026-06-01T00:00:00.000Z");
    const report1 = await syncDocuments(env.DB, dart.baseUri, [await page("a.md", "alpha"), await page("b.md", "beta")], { prune: false, now: first });
    expect(report1.added).toEqual(["documents/dart.dev/a", "documents/dart.dev/b"]);
    await syncDocuments(env.DB, docs.baseUri, [await page("c.md", "gamma", docs)], { prune: false, now: first });

    const report2 = await syncDocuments(env.DB, dart.baseUri, [await page("a.md", "alpha"), await page("b.md", "beta changed")], { prune: true, now: later });
    expect(report2).toMatchObject({ added: [], updated: ["documents/dart.dev/b"], unchanged: ["documents/dart.dev/a"], removed: [] });
    const stored = await findDocuments(env.DB, ["documents/dart.dev/a", "documents/dart.dev/b", "documents/example.com/docs/c"]);
    expect(stored.get("documents/dart.dev/a")?.updateTime).toBe(first.toISOString());
    expect(stored.get("documents/dart.dev/b")?.updateTime).toBe(later.toISOString());

    const report3 = await syncDocuments(env.DB, dart.baseUri, [await page("a.md", "alpha")], { prune: true, now: later });
    expect(report3.removed).toEqual(["documents/dart.dev/b"]);
    const after = await findDocuments(env.DB, ["documents/dart.dev/b", "documents/example.com/docs/c"]);
    expect(after.has("documents/dart.dev/b")).toBe(false);
    expect(after.has("documents/example.com/docs/c")).toBe(true);
  });

  it("keeps the search index in step: replaced text is no longer found, pruned pages vanish", async () => {
    await syncDocuments(env.DB, dart.baseUri, [await page("s.md", "zeppelin airship")], { prune: false });
    expect((await searchDocuments(env.DB, { query: "zeppelin" })).results).toHaveLength(1);
    await syncDocuments(env.DB, dart.baseUri, [await page("s.md", "blimp airship")], { prune: false });
    expect((await searchDocuments(env.DB, { query: "zeppelin" })).results).toHaveLength(0);
    expect((await searchDocuments(env.DB, { query: "blimp" })).results).toHaveLength(1);
    await syncDocuments(env.DB, dart.baseUri, [], { prune: true });
    expect((await searchDocuments(env.DB, { query: "blimp" })).results).toHaveLength(0);
  });

  it("refuses a page another base URI owns and writes nothing", async () => {
    const outer = siteFor("https://dart.dev");
    const inner = siteFor("https://dart.dev/language");
    await syncDocuments(env.DB, outer.baseUri, [await page("language/async.md", "outer", outer)], { prune: false });
    const innerPages = [await page("fresh.md", "new page", inner), await page("async.md", "inner", inner)];
    await expect(syncDocuments(env.DB, inner.baseUri, innerPages, { prune: false })).rejects.toThrow(/was ingested under base URI https:\/\/dart\.dev;/);
    expect((await findDocuments(env.DB, ["documents/dart.dev/language/fresh"])).size).toBe(0);
  });
});

describe("folders whose file names are not plain words", () => {
  // Regression: "guides/What's new.md" made a name with a space, refused by get_documents.
  it("percent-encodes file names so every page can be fetched by name", async () => {
    expect(pageUri("https://x.dev/docs", "guides/What's new.md")).toBe("https://x.dev/docs/guides/What's%20new");
    expect(pageUri("https://x.dev/docs", "faq?.md")).toBe("https://x.dev/docs/faq%3F");
    const doc = await page("guides/What's new.md", "News.");
    await syncDocuments(env.DB, dart.baseUri, [doc], { prune: false });
    expect((await getDocuments(env.DB, [doc.name]))[0]?.uri).toBe("https://dart.dev/guides/What's%20new");
  });

  // Regression: foo.md and foo/index.md both became documents/…/foo and the second silently won.
  it("refuses two files that publish the same page, naming both", async () => {
    const pages = [
      { path: "foo.md", text: "# Foo\n\none" },
      { path: "foo/index.md", text: "# Foo index\n\ntwo" },
    ];
    await expect(prepareSite(pages, dart)).rejects.toThrow("foo/index.md: publishes the same page as foo.md (https://dart.dev/foo)");
  });

  it("reports every malformed page at once and skips empty ones", async () => {
    const pages = [
      { path: "a.md", text: "---\ntitle: [\n---\nx" },
      { path: "b.md", text: "---\ntitle: 7\n---\nx" },
      { path: "empty.md", text: "---\ntitle: E\n---\n" },
    ];
    await expect(prepareSite(pages, dart)).rejects.toThrow(/^nothing was ingested; fix these pages and run again:\n  a\.md: invalid front matter.*\n  b\.md: front matter "title" must be a string$/s);
    const { skipped } = await prepareSite([pages[2] as { path: string; text: string }], dart);
    expect(skipped).toEqual([{ path: "empty.md", reason: "no content after the front matter and site markup" }]);
  });
});

describe("titles", () => {
  // Regression: a "# comment" inside a shell sample became the page title.
  it("takes the first H1 outside code as the title", async () => {
    const doc = await prepareDocument("run.md", "```sh\n# install first\nnpm i\n```\n\n# Running it\n\ntext", dart);
    expect(doc?.title).toBe("Running it");
  });
});
