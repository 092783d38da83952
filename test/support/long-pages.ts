// A 200 KB page built from the repository's own documentation (tests never read ../shared).
import { env } from "cloudflare:test";
import { prepareSite, siteFor, type PreparedDocument } from "../../src/documents/ingest/prepare-pages.ts";
import { syncDocuments } from "../../src/documents/ingest/write-corpus.ts";

const pages = import.meta.glob<string>("../../corpus/docs/**/*.md", { query: "?raw", import: "default", eager: true });

export const LONG_PAGE = "documents/long.example.com/handbook";

/**
 * Every page of corpus/docs, three times over, as one page of real Markdown
 * (headings at every level, code fences, tables, front matter dropped):
 * about 270 KB, longer than the 220 KB of go.dev's module reference.
 */
export async function loadLongPage(): Promise<PreparedDocument> {
  const bodies = Object.values(pages).map((text) => text.replace(/^---\n[\s\S]*?\n---\n/, ""));
  const body = [1, 2, 3].map((round) => `# Handbook, round ${round}\n\n${bodies.join("\n\n")}`).join("\n\n");
  const { documents } = await prepareSite([{ path: "handbook.md", text: `---\ntitle: Handbook\n---\n${body}` }], siteFor("https://long.example.com"));
  await syncDocuments(env.DB, "https://long.example.com", documents, { prune: false });
  return documents[0] as PreparedDocument;
}
