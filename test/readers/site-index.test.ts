// A site's own back-of-book index as a bridge of words (issue 34): a manual whose index says
// "UPSERT" → the INSERT page, a word that page never uses, read into real D1 whole and in a
// Workflow's small pieces; the index page itself is no search result.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { beginSiteRun, crawlSitePiece, ingestSite, publishSiteRun, type SiteRunState } from "../../src/documents/ingest/site-run.ts";
import { searchDocuments } from "../../src/documents/search/search-documents.ts";
import { htmlToPage } from "../../src/readers/site/html.ts";
import { planSiteRun } from "../../src/documents/ingest/plan-site-run.ts";

/** Words of the manual's index that point at pages other than INSERT, in alphabetical order. */
const OTHER_TERMS = [
  "ABORT", "aggregate functions", "ALTER TABLE", "ANALYZE", "arrays", "autovacuum", "BEGIN", "btree", "CHECK constraint", "CHECKPOINT",
  "CLUSTER", "COMMIT", "COPY", "cursors", "DEALLOCATE", "DELETE", "DISCARD", "domains", "DROP TABLE", "EXPLAIN",
  "foreign keys", "GRANT", "hash indexes", "joins", "LISTEN", "LOCK", "MERGE", "NOTIFY", "PREPARE", "REINDEX",
  "ROLLBACK", "savepoints", "sequences", "TRUNCATE", "VACUUM", "views",
];

const page = (title: string, body: string) => `<html><head><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`;

/** A DocBook-shaped index: a <dt> per term, its text then links titled with the target's title; sub-terms in the <dd> after it. */
function bookIndex(upsertTarget: string): string {
  const terms = [
    // Pages of their own, mostly not read here: a page given dozens of unanchored terms is a list of things, not what they are about.
    ...OTHER_TERMS.map((term, i) => ({ term, href: `sql-${i}.html`, title: term })),
    { term: "INSERT", href: "sql-insert.html", title: "INSERT" },
    { term: "ON CONFLICT", href: "sql-insert.html#SQL-ON-CONFLICT", title: "INSERT" },
    { term: "UPSERT", href: upsertTarget, title: "INSERT" },
  ].sort((a, b) => a.term.toLowerCase().localeCompare(b.term.toLowerCase()));
  const entries = terms.map(({ term, href, title }) => `<dt>${term}, <a class="indexterm" href="${href}">${title}</a></dt>`).join("\n");
  return page("Index", `<div class="index"><div class="indexdiv"><dl>${entries}<dd><dl><dt>zone, <a href="sql-other.html">Other Commands</a></dt></dl></dd></dl></div></div>`);
}

function manual(upsertTarget = "sql-insert.html#SQL-ON-CONFLICT") {
  const files = new Map<string, string>([
    ["/docs/index.html", page("Manual", `<p>The manual.</p><a href="sql-insert.html">INSERT</a> <a href="sql-other.html">Other</a> <a href="bookindex.html">Index</a>`)],
    [
      "/docs/sql-insert.html",
      page(
        "INSERT",
        `<p>INSERT creates new rows in a table.</p>
         <div class="refsect2" id="SQL-ON-CONFLICT"><h2>ON CONFLICT Clause</h2><p>The optional clause gives an alternative action to raising a unique violation error: DO NOTHING, or DO UPDATE.</p></div>`,
      ),
    ],
    ["/docs/sql-other.html", page("Other Commands", `<p>Commands for tables, transactions and maintenance. Nothing here writes rows one by one.</p>`)],
    ["/docs/bookindex.html", bookIndex(upsertTarget)],
  ]);
  return (async (input: RequestInfo | URL) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const body = files.get(url.pathname);
    return body ? new Response(body, { headers: { "content-type": "text/html" } }) : new Response("no", { status: 404 });
  }) as typeof fetch;
}

const options = (baseUri: string, fetch = manual()) => planSiteRun({ start: "https://manual.test/docs/index.html", baseUri, fetch, userAgent: "Almanac-test", prune: true });

async function parents(query: string, baseUri: string): Promise<string[]> {
  const { results } = await searchDocuments(env.DB, { query, pageSize: 10 });
  return results.map((hit) => hit.parent).filter((parent) => parent.startsWith(`documents/${baseUri.replace("https://", "")}/`));
}

describe("a site's back-of-book index", () => {
  it("makes a page findable by the index's word for it, and is itself no result", async () => {
    const baseUri = "https://index-whole.test/docs";
    const result = await ingestSite(env.DB, options(baseUri));
    expect(result.indexPages).toBe(1);
    expect(result.notes.map((note) => note.note)).toContainEqual(expect.stringMatching(/^a back-of-book index: \d+ terms attached/));
    expect(await parents("upsert", baseUri)).toEqual([`documents/index-whole.test/docs/sql-insert.html`]);
    // The term goes to the section its anchor names; the page text never shows it.
    const { results } = await searchDocuments(env.DB, { query: "upsert" });
    expect(results[0]?.id).toBe("SQL-ON-CONFLICT");
    expect(results[0]?.content).not.toMatch(/upsert/i);
    for (const query of ["upsert", "vacuum", "savepoints", "index"]) expect(await parents(query, baseUri)).not.toContain("documents/index-whole.test/docs/bookindex.html");
  });

  it("attaches the terms when a Workflow reads the index in another piece than the page it points to", async () => {
    const baseUri = "https://index-pieces.test/docs";
    const run = options(baseUri);
    await beginSiteRun(env.DB, "index-pieces", run);
    let state: SiteRunState | undefined;
    do state = (await crawlSitePiece(env.DB, "index-pieces", run, state, 1)).state;
    while (!state.done);
    await publishSiteRun(env.DB, "index-pieces", run, state);
    expect(state.indexPages).toBe(1);
    expect(await parents("upsert", baseUri)).toEqual([`documents/index-pieces.test/docs/sql-insert.html`]);
  });

  it("takes a term away when the index no longer gives it", async () => {
    const baseUri = "https://index-moved.test/docs";
    await ingestSite(env.DB, options(baseUri));
    expect(await parents("upsert", baseUri)).toEqual([`documents/index-moved.test/docs/sql-insert.html`]);
    await ingestSite(env.DB, options(baseUri, manual("sql-other.html")));
    expect(await parents("upsert", baseUri)).toEqual([`documents/index-moved.test/docs/sql-other.html`]);
  });

  it("tells an index from a table of contents and from a page with a list of links", () => {
    const url = "https://manual.test/docs/x.html";
    const list = (items: string[]) => `<ul>${items.map((item, i) => `<li><a href="p${i}.html">${item}</a></li>`).join("")}</ul>`;
    const sorted = [...OTHER_TERMS].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()));
    expect(htmlToPage(page("Index", list(sorted)), { url }).indexEntries).toHaveLength(sorted.length);
    // The book's order is not alphabetical.
    expect(htmlToPage(page("Contents", list([...sorted].reverse())), { url }).indexEntries).toBeUndefined();
    // Nor is a numbered table of contents, whose section numbers sort like words.
    const numbered = sorted.map((term, i) => `${i + 1}. ${term}`);
    expect(htmlToPage(page("The tutorial", list(numbered)), { url }).indexEntries).toBeUndefined();
    // A page whose text is mostly its own prose keeps being a page.
    const prose = `<p>${"A long explanation of how these commands relate to each other. ".repeat(60)}</p>`;
    expect(htmlToPage(page("Commands", prose + list(sorted)), { url }).indexEntries).toBeUndefined();
  });

  it("reads Sphinx's genindex, a sub-entry carrying its parent's term", () => {
    const items = OTHER_TERMS.map((term, i) => `<li><a href="api.html#t${i}">${term}</a></li>`).join("");
    const html = page(
      "Index",
      `<table class="indextable genindextable"><tr><td><ul><li>--build<ul><li><a href="manual/cmake.1.html#cmdoption-cmake-build">cmake command line option</a></li></ul></li>${items}</ul></td></tr></table>`,
    );
    const entries = htmlToPage(html, { url: "https://cmake.test/genindex.html" }).indexEntries ?? [];
    expect(entries[0]).toEqual({ term: "--build cmake command line option", url: "https://cmake.test/manual/cmake.1.html#cmdoption-cmake-build" });
    expect(entries).toHaveLength(OTHER_TERMS.length + 1);
  });
});
