// A corpus larger than one D1 batch is written in batches of whole pages
// within D1's limits, with progress after each, and an unchanged corpus
// is not written again.
import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { D1_BATCH_LIMITS } from "../../src/d1/batches.ts";
import { prepareSite, siteFor } from "../../src/documents/ingest/prepare-pages.ts";
import { syncDocuments, type WriteProgress } from "../../src/documents/ingest/write-corpus.ts";

const site = siteFor("https://big.example.com");

async function pages(count: number, text = "alpha") {
  const files = Array.from({ length: count }, (_, i) => ({
    path: `page-${i}.md`,
    // Forty sections: three chunk INSERTs of sixteen rows each, beside the page's delete and insert.
    text: `# Page ${i}\n\n${Array.from({ length: 40 }, (_, s) => `## Section ${s}\n\n${text} ${i} ${s}`).join("\n\n")}`,
  }));
  return (await prepareSite(files, site)).documents;
}

describe("ingestion in batches", () => {
  it("writes every page in batches within the statement limit, reporting each", async () => {
    const documents = await pages(30);
    const batch = vi.spyOn(env.DB, "batch");
    const progress: WriteProgress[] = [];
    const report = await syncDocuments(env.DB, site.baseUri, documents, { prune: false, onProgress: (p) => progress.push(p) });
    expect(report.added).toHaveLength(30);
    // Five statements a page (delete, insert, three chunk inserts): ten pages a batch; then the common terms' counts are renewed (28).
    expect(batch.mock.calls.map(([statements]) => statements.length)).toEqual([50, 50, 50, 28]);
    for (const [statements] of batch.mock.calls) expect(statements.length).toBeLessThanOrEqual(D1_BATCH_LIMITS.statements);
    expect(progress.map((p) => p.pages)).toEqual([10, 20, 30]);
    expect(progress.at(-1)).toMatchObject({ totalPages: 30 });
    expect(progress.at(-1)?.bytes).toBe(progress.at(-1)?.totalBytes);
    const { n } = (await env.DB.prepare("SELECT count(*) AS n FROM chunks WHERE document_name LIKE 'documents/big.example.com/%'").first<{ n: number }>()) ?? { n: 0 };
    expect(n).toBe(30 * 40);
  });

  it("writes nothing when nothing changed, and only the changed page when one did", async () => {
    await syncDocuments(env.DB, site.baseUri, await pages(30), { prune: false });
    const batch = vi.spyOn(env.DB, "batch");
    const again = await syncDocuments(env.DB, site.baseUri, await pages(30), { prune: false });
    expect(again.unchanged).toHaveLength(30);
    expect(batch).not.toHaveBeenCalled();
    const changed = await pages(30);
    changed[7] = (await pages(8, "beta"))[7] as (typeof changed)[number];
    const third = await syncDocuments(env.DB, site.baseUri, changed, { prune: false });
    expect(third.updated).toEqual(["documents/big.example.com/page-7"]);
    // The changed page's five statements, then the renewed counts of common terms.
    expect(batch.mock.calls.map(([statements]) => statements.length)).toEqual([5, 28]);
  });
});
