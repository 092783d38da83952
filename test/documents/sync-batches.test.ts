// A corpus larger than one D1 batch is staged in batches within D1's limits,
// with progress after each, and published in one transaction: until that
// transaction readers see none of it. An unchanged corpus is not written again.
import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { D1_BATCH_LIMITS } from "../../src/d1/batches.ts";
import { prepareSite, siteFor } from "../../src/documents/ingest/prepare-pages.ts";
import { syncDocuments, type WriteProgress } from "../../src/documents/ingest/write-corpus.ts";

const site = siteFor("https://big.example.com");

async function pages(count: number, text = "alpha") {
  const files = Array.from({ length: count }, (_, i) => ({
    path: `page-${i}.md`,
    // Forty sections: three chunk INSERTs of fourteen rows each, beside the page's staging and manifest rows.
    text: `# Page ${i}\n\n${Array.from({ length: 40 }, (_, s) => `## Section ${s}\n\n${text} ${i} ${s}`).join("\n\n")}`,
  }));
  return (await prepareSite(files, site)).documents;
}

const seenPages = async () =>
  ((await env.DB.prepare("SELECT count(*) AS n FROM documents WHERE base_uri = ?1").bind(site.baseUri).first<{ n: number }>()) ?? { n: 0 }).n;

describe("ingestion in batches", () => {
  it("stages every page in batches within the statement limit, reporting each, and readers see the pages only once all are published", async () => {
    const documents = await pages(30);
    const original = env.DB.batch.bind(env.DB);
    const seenBeforeBatch: number[] = [];
    const batch = vi.spyOn(env.DB, "batch").mockImplementation(async (statements) => {
      seenBeforeBatch.push(await seenPages());
      return original(statements);
    });
    const progress: WriteProgress[] = [];
    const report = await syncDocuments(env.DB, site.baseUri, documents, { prune: false, onProgress: (p) => progress.push(p) });
    batch.mockRestore();
    expect(report.added).toHaveLength(30);
    for (const [statements] of batch.mock.calls) expect(statements.length).toBeLessThanOrEqual(D1_BATCH_LIMITS.statements);
    // Six statements a page (staged chunks out, the row, three chunk inserts, the manifest) after the guard and the touch: eight pages a batch.
    expect(progress.map((p) => p.pages)).toEqual([8, 16, 24, 30]);
    expect(progress.at(-1)).toMatchObject({ totalPages: 30 });
    expect(progress.at(-1)?.bytes).toBe(progress.at(-1)?.totalBytes);
    // Nothing is seen before the publishing batch, everything after it: begin, sweep, four staging batches, then publishing.
    const published = seenBeforeBatch.indexOf(30);
    expect(published).toBeGreaterThanOrEqual(7);
    expect(seenBeforeBatch.slice(0, published).every((n) => n === 0)).toBe(true);
    expect(seenBeforeBatch.slice(published).every((n) => n === 30)).toBe(true);
    const { n } = (await env.DB.prepare("SELECT count(*) AS n FROM chunks WHERE document_name LIKE 'documents/big.example.com/%'").first<{ n: number }>()) ?? { n: 0 };
    expect(n).toBe(30 * 40);
    // The staged rows are gone once published.
    const staged = await env.DB.prepare("SELECT (SELECT count(*) FROM staged_chunks) + (SELECT count(*) FROM staged_documents) + (SELECT count(*) FROM staged_pages) AS n").first<{ n: number }>();
    expect(staged?.n).toBe(0);
  });

  it("publishes nothing when nothing changed, and only the changed page when one did", async () => {
    await syncDocuments(env.DB, site.baseUri, await pages(30), { prune: false });
    const before = await env.DB.prepare("SELECT name, update_time FROM documents WHERE base_uri = ?1 ORDER BY name").bind(site.baseUri).all();
    const again = await syncDocuments(env.DB, site.baseUri, await pages(30), { prune: false });
    expect(again.unchanged).toHaveLength(30);
    const changed = await pages(30);
    changed[7] = (await pages(8, "beta"))[7] as (typeof changed)[number];
    const third = await syncDocuments(env.DB, site.baseUri, changed, { prune: false, now: new Date("2030-01-01T00:00:00Z") });
    expect(third.updated).toEqual(["documents/big.example.com/page-7"]);
    const after = await env.DB.prepare("SELECT name, update_time FROM documents WHERE base_uri = ?1 ORDER BY name").bind(site.baseUri).all<{ name: string; update_time: string }>();
    // Only the changed page's updateTime moved: it is the time its content last changed.
    const moved = after.results.filter((row, i) => row.update_time !== (before.results[i] as { update_time: string }).update_time);
    expect(moved).toEqual([{ name: "documents/big.example.com/page-7", update_time: "2030-01-01T00:00:00.000Z" }]);
  });
});
