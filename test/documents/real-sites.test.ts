// Pages written the way real documentation sites write them (test/fixtures/sites mimics dart.dev's
// Liquid and code-excerpt markup, go.dev's JSON metadata and HTML anchors, Hugo's TOML and MDX).
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { chunkDocument } from "../../src/documents/ingest/chunk-page.ts";
import { prepareSite, siteFor, type PreparedDocument } from "../../src/documents/ingest/prepare-pages.ts";
import { syncDocuments } from "../../src/documents/ingest/write-corpus.ts";
import { searchDocuments } from "../../src/documents/search/search-documents.ts";

const files = import.meta.glob<string>("../fixtures/sites/*", { query: "?raw", import: "default", eager: true });
const pages = Object.entries(files).map(([path, text]) => ({ path: path.replace("../fixtures/sites/", ""), text }));

async function prepared(): Promise<Map<string, PreparedDocument>> {
  const { documents } = await prepareSite(pages, siteFor("https://docs.example.com"));
  return new Map(documents.map((doc) => [doc.path, doc]));
}

describe("ingesting real site sources", () => {
  it("titles pages from YAML, TOML and go.dev's JSON metadata, then from the first heading", async () => {
    const docs = await prepared();
    expect(docs.get("dart-style-page.md")).toMatchObject({ title: "Asynchronous streams", description: "How to read and write streams." });
    expect(docs.get("go-style-page.md")?.title).toBe("Go Modules Reference");
    expect(docs.get("hugo-style-page.md")).toMatchObject({ title: "Hugo page", description: "Front matter in TOML." });
    expect(docs.get("mdx-style-page.mdx")?.title).toBe("Installing the CLI");
  });

  it("stores what a reader sees: no template markup, code and tables intact", async () => {
    const dart = (await prepared()).get("dart-style-page.md");
    const content = dart?.content ?? "";
    for (const marker of ["{%", "{{site", "<?code-excerpt", "<!--", "<div", "<Card", ":::", "{:#", "TODO"]) expect(content).not.toContain(marker);
    expect(content).toContain("A [`Stream`](/dart-async/Stream-class.html) delivers a\nsequence of events.");
    expect(content).toContain("```dart\nfinal sub = stream.listen(print);\n// {{not a template}} stays: it is code\n```");
    expect(content).toContain("| `listen` | a `StreamSubscription` |");
    expect(content).toContain("Listening starts the stream's work.");
    expect(content).toContain("**Using streams**");
    expect(dart?.markupRemoved).toMatchObject({ "processing instructions": 2, "Liquid tags": 2, "template expressions": 2, "HTML comments": 1 });
  });

  it("uses the site's own heading ids as chunk anchors ({#id}, <a id>, <h3 id>)", async () => {
    const go = (await prepared()).get("go-style-page.md");
    expect(go?.chunks.map((chunk) => chunk.id)).toEqual(["introduction", "go-mod-file-replace"]);
    expect(go?.content).toContain("### replace directive {#go-mod-file-replace}");
    expect(go?.content).toContain("In loops write `i < n`.");
    expect(go?.content).toContain("module path & its requirements");
    expect(go?.content).toContain("go get <module-path>");
    const dart = (await prepared()).get("dart-style-page.md");
    // Short leads are read at the head of their first subsection.
    expect(dart?.chunks.map((chunk) => chunk.id)).toEqual(["listening"]);
  });

  // Regression: `_` inside an identifier was read as emphasis, so the heading lost its underscores.
  it("keeps underscores of identifiers in headings and their anchors", () => {
    const [chunk] = chunkDocument("Page", "## Where `claude_desktop_config.json` lives\n\nText.\n\n## Really _important_ part\n\nMore.");
    expect(chunk).toMatchObject({ id: "where-claude_desktop_configjson-lives", heading: "Where claude_desktop_config.json lives" });
    expect(chunkDocument("Page", "## Really _important_ part\n\nMore.")[0]?.heading).toBe("Really important part");
  });

  it("keeps anchors stable across re-ingestion of unchanged text", async () => {
    const first = (await prepared()).get("go-style-page.md");
    const second = (await prepared()).get("go-style-page.md");
    expect(second?.chunks.map((chunk) => chunk.id)).toEqual(first?.chunks.map((chunk) => chunk.id));
    expect(second?.contentHash).toBe(first?.contentHash);
  });

  it("links search results to the section the real page opens at", async () => {
    const { documents } = await prepareSite(pages, siteFor("https://docs.example.com"));
    await syncDocuments(env.DB, "https://docs.example.com", documents, { prune: false });
    const { results } = await searchDocuments(env.DB, { query: "replace directive" });
    expect(results[0]).toMatchObject({ parent: "documents/docs.example.com/go-style-page", id: "go-mod-file-replace" });
  });
});
