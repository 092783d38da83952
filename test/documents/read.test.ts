// get_documents within a result budget: one section by name, long pages in parts, nothing lost.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { AlmanacError } from "../../src/errors.ts";
import { readDocuments, type DocumentPart } from "../../src/documents/read/read-parts.ts";
import { searchDocuments } from "../../src/documents/search/search-documents.ts";
import { prepareSite, siteFor, type PreparedDocument } from "../../src/documents/ingest/prepare-pages.ts";
import { syncDocuments } from "../../src/documents/ingest/write-corpus.ts";
import { corpusName, loadCorpus } from "../support/corpus.ts";
import { LONG_PAGE, loadLongPage } from "../support/long-pages.ts";

let long: PreparedDocument;

/** Parts and the whole call the same size, as for a call with one name. */
const budgetOf = (chars: number) => ({ partChars: chars, totalChars: chars });
let corpus = new Map<string, PreparedDocument>();

beforeAll(async () => {
  corpus = new Map((await loadCorpus()).map((doc) => [doc.name, doc]));
  long = await loadLongPage();
});

/** Follows `next` from `name` to the last part, returning every part read. */
async function readAll(name: string, budget: number): Promise<DocumentPart[]> {
  const parts: DocumentPart[] = [];
  let next: string | undefined = name;
  while (next) {
    const [part] = await readDocuments(env.DB, [next], budgetOf(budget));
    if (!part) throw new Error("no part");
    parts.push(part);
    next = part.next;
  }
  return parts;
}

describe("a long page in parts", () => {
  it("is longer than 200 KB", () => {
    expect(long.contentLengthBytes).toBeGreaterThan(200_000);
  });

  it.each([19_200, 5_000])("reproduces the whole page exactly once through the continuation names (budget %i)", async (budget) => {
    const parts = await readAll(LONG_PAGE, budget);
    expect(parts.length).toBeGreaterThan(long.content.length / budget);
    expect(parts.map((part) => part.content).join("")).toBe(long.content);
    for (const part of parts) expect(part.content.length).toBeLessThanOrEqual(budget);
    expect(parts.slice(0, -1).every((part) => part.truncated === true)).toBe(true);
    const last = parts[parts.length - 1];
    expect(last?.truncated).toBeUndefined();
    expect(last?.next).toBeUndefined();
  });

  it("cuts at section boundaries and names parts plainly", async () => {
    const [first] = await readDocuments(env.DB, [LONG_PAGE], budgetOf(19_200));
    expect(first?.next).toBe(`${LONG_PAGE}#~2`);
    expect(first?.content.endsWith("\n")).toBe(true);
    const [second] = await readDocuments(env.DB, [`${LONG_PAGE}#~2`], budgetOf(19_200));
    expect(second?.content).toMatch(/^#{1,6} /);
    expect(long.content).toContain(`${first?.content}${second?.content}`);
  });

  // Regression (issue 24): a page that was one 5.5 MB line came back whole, an 11 MB result.
  it.each([
    ["words", "lorem ipsum dolor sit amet ".repeat(12_000)],
    ["no spaces, with emoji", "x🙂".repeat(100_000)],
  ])("cuts a line longer than a part inside the line, losing nothing (%s)", async (_, line) => {
    const { documents } = await prepareSite([{ path: "one-line.md", text: `---\ntitle: One line\n---\nLead.\n${line}\nEnd.` }], siteFor("https://line.example.com"));
    await syncDocuments(env.DB, "https://line.example.com", documents, { prune: false });
    const parts = await readAll("documents/line.example.com/one-line", 8_000);
    expect(parts.length).toBeGreaterThan(line.length / 8_000);
    for (const part of parts) expect(part.content.length).toBeLessThanOrEqual(8_000);
    expect(parts.map((part) => part.content).join("")).toBe(documents[0]?.content);
  });

  it("gives a part's name the same text in every call, whatever else the call asks for", async () => {
    const [alone] = await readDocuments(env.DB, [`${LONG_PAGE}#~3`], budgetOf(19_200));
    const [, shared] = await readDocuments(env.DB, [corpusName("filters"), `${LONG_PAGE}#~3`], { partChars: 19_200, totalChars: 60_000 });
    expect(shared?.content).toBe(alone?.content);
    expect(shared?.next).toBe(alone?.next);
  });

  it("refuses a part past the last, saying how many there are", async () => {
    await expect(readDocuments(env.DB, [`${LONG_PAGE}#~999`], budgetOf(19_200))).rejects.toThrow(/has \d+ parts/);
  });
});

describe("a section by name", () => {
  it("returns the section with its sub-sections and its heading path", async () => {
    const page = corpusName("tools/get-documents");
    const [doc] = await readDocuments(env.DB, [page], budgetOf(19_200));
    const outline = doc?.outline ?? [];
    // A heading that has sub-sections, picked from the page's own outline.
    const index = outline.findIndex((h, i) => (outline[i + 1]?.level ?? 0) > h.level);
    const heading = outline[index];
    const marks = (level: number | undefined) => "#".repeat(level ?? 0);
    const [section] = await readDocuments(env.DB, [`${page}#${heading?.anchor}`], budgetOf(19_200));
    expect(section).toMatchObject({ name: `${page}#${heading?.anchor}`, title: doc?.title, uri: doc?.uri, section: { anchor: heading?.anchor, headingPath: heading?.path } });
    expect(index).toBeGreaterThanOrEqual(0);
    expect(section?.content.startsWith(`${marks(heading?.level)} ${heading?.text}`)).toBe(true);
    expect(section?.content).toContain(`${marks(outline[index + 1]?.level)} ${outline[index + 1]?.text}`);
    const following = outline.slice(index + 1).find((h) => h.level <= (heading?.level ?? 0));
    if (following) expect(section?.content).not.toContain(`\n${marks(following.level)} ${following.text}`);
    expect(corpus.get(page)?.content).toContain(section?.content);
  });

  it("accepts the anchor a search hit links to", async () => {
    const { results } = await searchDocuments(env.DB, { query: "revoke an API key", filter: 'data_source = "almanac.dev"' });
    const hit = results[0];
    const [section] = await readDocuments(env.DB, [`${hit?.parent}#${hit?.id}`], budgetOf(19_200));
    expect(corpus.get(hit?.parent ?? "")?.content).toContain(section?.content);
    expect(section?.content.length).toBeGreaterThan(0);
  });

  // Regression: search hands out `intro-part-2` ids for the lead of a long page; they named no section.
  it("reads the lead of a page, and a piece of it a search hit names", async () => {
    const leadText = Array.from({ length: 12 }, (_, i) => `Paragraph ${i} of the lead, long enough to need several chunks. ${"word ".repeat(40).trim()}`).join("\n\n");
    const { documents } = await prepareSite([{ path: "lead.md", text: `---\ntitle: Lead\n---\n${leadText}\n\n## After\n\nMore.` }], siteFor("https://lead.example.com"));
    await syncDocuments(env.DB, "https://lead.example.com", documents, { prune: false });
    expect(documents[0]?.chunks.map((chunk) => chunk.id)).toContain("intro-part-2");
    const [lead] = await readDocuments(env.DB, ["documents/lead.example.com/lead#intro"], budgetOf(19_200));
    const [piece] = await readDocuments(env.DB, ["documents/lead.example.com/lead#intro-part-2"], budgetOf(19_200));
    // Up to the line before "## After": the blank line between them belongs to the lead, so parts join back exactly.
    expect(lead?.content).toBe(`${leadText}\n`);
    expect(piece?.content).toBe(lead?.content);
  });

  it("answers an unknown section with NOT_FOUND naming the closest real ones", async () => {
    const page = corpusName("api-keys-and-quotas");
    const error = await readDocuments(env.DB, [`${page}#revoke-a-kee`], budgetOf(19_200)).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(AlmanacError);
    expect((error as AlmanacError).status).toBe("NOT_FOUND");
    expect((error as AlmanacError).message).toMatch(/has no section "revoke-a-kee"; the closest are "documents\/almanac\.dev\/docs\/api-keys-and-quotas#[^"]*revok/);
  });
});

describe("the budget", () => {
  it("gives a small page exactly what it got before: the whole page, no truncated or next", async () => {
    const page = corpusName("filters");
    const [doc] = await readDocuments(env.DB, [page], budgetOf(19_200));
    expect(doc?.content).toBe(corpus.get(page)?.content);
    expect(doc).not.toHaveProperty("truncated");
    expect(doc).not.toHaveProperty("next");
  });

  it("fits a page exactly as long as the budget in one part, and one character less in two", async () => {
    const page = corpusName("filters");
    const length = corpus.get(page)?.content.length ?? 0;
    expect((await readDocuments(env.DB, [page], budgetOf(length)))[0]?.truncated).toBeUndefined();
    const [first] = await readDocuments(env.DB, [page], budgetOf(length - 1));
    expect(first).toMatchObject({ truncated: true, next: `${page}#~2` });
  });

  // Regression: once one entry did not fit, every entry after it came back empty, small ones too.
  it("still serves the small pages whole beside a long one, which is cut short", async () => {
    const docs = await readDocuments(env.DB, [LONG_PAGE, corpusName("filters")], { partChars: 19_200, totalChars: 15_000 });
    expect(docs[0]).toMatchObject({ truncated: true, next: expect.stringMatching(/^documents\/long\.example\.com\/handbook#@\d+$/) });
    expect(docs[0]?.content.length).toBeGreaterThan(0);
    expect(docs[1]?.content).toBe(corpus.get(corpusName("filters"))?.content);
  });

  // Regression (issue 24): three ~10 KB pages in one call gave the middle one empty content with `next` naming itself.
  it("shares one budget across names: each page gets its first text, and `next` reads on from where it stops", async () => {
    const pages = ["one", "two", "three"].map((word) => ({ path: `${word}.md`, text: `---\ntitle: Page ${word}\n---\n${`Paragraph about ${word}. ${"text ".repeat(60)}\n\n`.repeat(30)}` }));
    const { documents } = await prepareSite(pages, siteFor("https://three.example.com"));
    await syncDocuments(env.DB, "https://three.example.com", documents, { prune: false });
    expect(documents.every((doc) => doc.content.length > 9_000)).toBe(true);
    const names = documents.map((doc) => doc.name);
    const docs = await readDocuments(env.DB, names, { partChars: 19_200, totalChars: 20_000 });
    expect(docs.reduce((sum, doc) => sum + doc.content.length, 0)).toBeLessThanOrEqual(20_000);
    for (const [index, doc] of docs.entries()) {
      expect(doc.content.length).toBeGreaterThan(5_000);
      if (!doc.next) continue;
      expect(doc.next).not.toBe(doc.name);
      const rest = await readAll(doc.next, 19_200);
      expect(doc.content + rest.map((part) => part.content).join("")).toBe(documents[index]?.content);
    }
  });

  it("names itself when its share of a call would be too small to read", async () => {
    const docs = await readDocuments(env.DB, [LONG_PAGE, LONG_PAGE, LONG_PAGE], { partChars: 19_200, totalChars: 900 });
    expect(docs[0]?.content.length).toBeGreaterThan(0);
    expect(docs[2]).toMatchObject({ content: "", truncated: true, next: LONG_PAGE });
  });
});

describe("search within the budget", () => {
  it("ends a page early and continues right after it, with no gap and no repeat", async () => {
    const query = "quota key search documents";
    const whole = await searchDocuments(env.DB, { query, pageSize: 20 });
    const first = await searchDocuments(env.DB, { query, pageSize: 20, budgetChars: 4_000 });
    expect(first.results.length).toBeLessThan(whole.results.length);
    expect(first.results.reduce((sum, hit) => sum + hit.content.length + 300, 0)).toBeLessThanOrEqual(4_000);
    const second = await searchDocuments(env.DB, { query, pageSize: 20, budgetChars: 4_000, pageToken: first.nextPageToken });
    const ids = (hits: { parent: string; id: string }[]) => hits.map((hit) => `${hit.parent}#${hit.id}`);
    expect([...ids(first.results), ...ids(second.results)]).toEqual(ids(whole.results).slice(0, first.results.length + second.results.length));
  });
});
