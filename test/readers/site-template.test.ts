// The site's template learnt from the site: a manual in DocBook's shape (no main, no article;
// Prev / Up / Home / Next tables above and below every page; each section's id on a div
// around its heading) read into real D1, whole and in a Workflow's small pieces.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { planSiteRun } from "../../src/documents/ingest/plan-site-run.ts";
import { beginSiteRun, crawlSitePiece, ingestSite, publishSiteRun, type SiteRunState } from "../../src/documents/ingest/site-run.ts";
import { findDocuments } from "../../src/documents/read/stored-documents.ts";
import { SiteTemplate } from "../../src/readers/site/template.ts";

const CHAPTERS = ["Data Types", "Functions and Operators", "Concurrency Control"];
const SECTIONS = ["Overview", "Numeric Types", "Character Types", "Date Types", "Locking", "Indexes", "Transactions", "Views"];

/** One page of the manual: its navigation tables are the same on every page but for the titles. */
function manualPage(index: number): string {
  const title = `${index + 1}.1. ${SECTIONS[index]}`;
  const chapter = `Chapter ${index + 1}. ${CHAPTERS[index % CHAPTERS.length]}`;
  const prev = index > 0 ? `page${index}.html` : "index.html";
  const next = `page${index + 2}.html`;
  const nav = `<table width="100%" summary="Navigation header"><tr><th colspan="5" align="center">${title}</th></tr>
    <tr><td><a accesskey="p" href="${prev}">Prev</a></td><td><a accesskey="u" href="index.html">Up</a></td>
    <th>${chapter}</th><td><a accesskey="h" href="index.html">Home</a></td><td><a accesskey="n" href="${next}">Next</a></td></tr></table>`;
  const footer = `<table width="100%" summary="Navigation footer"><tr><td><a href="${prev}">Prev</a></td><td><a href="index.html">Up</a></td><td><a href="${next}">Next</a></td></tr>
    <tr><td>${SECTIONS[index - 1] ?? "Preface"}</td><td><a href="index.html">Home</a></td><td>${SECTIONS[index + 1] ?? "Appendix"}</td></tr></table>`;
  return `<html><head><title>${title}</title></head><body>
    <div class="navheader">${nav}<hr></div>
    <div class="sect1" id="SECT-${index}"><div class="titlepage"><div><div><h2 class="title">${title}</h2></div></div></div>
      <p>The ${SECTIONS[index]} section explains topic number ${index} in words of its own.</p>
      <div class="sect2" id="SECT-${index}-PARAMS"><div class="titlepage"><div><div><h3 class="title">Parameters</h3></div></div></div>
        <p>Parameter ${index} is described here.</p></div>
    </div>
    <div class="navfooter"><hr>${footer}</div></body></html>`;
}

function manual(pages: number, edit: (html: string) => string = (html) => html) {
  const files = new Map<string, string>([["/manual/index.html", `<html><head><title>Manual</title></head><body><h1>Manual</h1>${Array.from({ length: pages }, (_, i) => `<a href="page${i + 1}.html">${SECTIONS[i]}</a>`).join(" ")}</body></html>`]]);
  for (let i = 0; i < pages; i += 1) files.set(`/manual/page${i + 1}.html`, edit(manualPage(i)));
  return (async (input: RequestInfo | URL) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const body = files.get(url.pathname);
    return body ? new Response(body, { headers: { "content-type": "text/html" } }) : new Response("no", { status: 404 });
  }) as typeof fetch;
}

const options = (baseUri: string) => planSiteRun({ start: "https://manual.test/manual/index.html", baseUri, fetch: manual(8), userAgent: "Almanac-test", prune: false });

describe("a site's template, learnt from its pages", () => {
  it("drops the navigation tables every page repeats, keeps each page's own text, and links sections to the site's own ids", async () => {
    const result = await ingestSite(env.DB, options("https://manual.test/manual-whole"));
    expect(result.contentRules).toEqual({ body: 9 });
    expect(result.templateStripped).toBe(8);
    const content = (await findDocuments(env.DB, ["documents/manual.test/manual-whole/page3.html"])).get("documents/manual.test/manual-whole/page3.html")?.content ?? "";
    expect(content).toContain("The Character Types section explains topic number 2");
    expect(content).toContain("Parameters {#SECT-2-PARAMS}");
    expect(content).toContain("{#SECT-2}");
    for (const navigation of ["Prev", "Home", "Next", "Chapter 3.", "Navigation"]) expect(content).not.toContain(navigation);
  });

  it("learns the same template when a Workflow reads the site three pages at a time", async () => {
    const runId = "template-pieces";
    const run = options("https://manual.test/manual-pieces");
    await beginSiteRun(env.DB, runId, run);
    let state: SiteRunState | undefined;
    do state = (await crawlSitePiece(env.DB, runId, run, state, 3)).state;
    while (!state.done);
    await publishSiteRun(env.DB, runId, run, state);
    // The first piece (index and two pages) is too little evidence; from the fourth page on the template is known.
    expect(state.templateStripped).toBeGreaterThanOrEqual(5);
    const late = (await findDocuments(env.DB, ["documents/manual.test/manual-pieces/page7.html"])).get("documents/manual.test/manual-pieces/page7.html")?.content ?? "";
    expect(late).not.toContain("Prev");
    expect(late).toContain("The Transactions section explains topic number 6");
  });

  it("strips a later run's few pages by the template an earlier run of the base URI learnt", async () => {
    const baseUri = "https://manual.test/manual-later";
    await ingestSite(env.DB, options(baseUri));
    // A push names one page that changed: one page read anew is too little to learn a template from.
    const changed = manual(8, (html) => html.replace("in words of its own", "in new words"));
    const result = await ingestSite(env.DB, { ...options(baseUri), fetch: changed, only: ["https://manual.test/manual/page3.html"] });
    expect(result.updated).toEqual(["documents/manual.test/manual-later/page3.html"]);
    expect(result.templateStripped).toBe(1);
    const content = (await findDocuments(env.DB, ["documents/manual.test/manual-later/page3.html"])).get("documents/manual.test/manual-later/page3.html")?.content ?? "";
    expect(content).toContain("explains topic number 2 in new words");
    for (const navigation of ["Prev", "Home", "Next"]) expect(content).not.toContain(navigation);
  });

  it("never takes a heading, the middle of a page, or a whole page for template", () => {
    const template = new SiteTemplate();
    const page = (n: number) => `[Home](/) [Next](/n${n})\n\n## Parameters\n\nText ${n}.\n\n[Home](/) [Next](/n${n})\n\nMore ${n}.\n\n[Home](/) [Next](/n${n})`;
    template.learn([1, 2, 3, 4, 5].map(page));
    expect(template.strip(page(6)).markdown).toBe("## Parameters\n\nText 6.\n\n[Home](/) [Next](/n6)\n\nMore 6.");
    expect(template.strip("[Home](/) [Next](/)").markdown).toBe("[Home](/) [Next](/)");
    // A title every page repeats at its top is the site's banner; the page's own title stays.
    const bannered = new SiteTemplate();
    const withBanner = (n: number) => `# Acme 2.0 documentation\n\n- [Page ${n}](https://acme.test/p${n}#a)\n- [More](https://acme.test/p${n}#b)\n\n# Page ${n}\n\nText ${n}.`;
    bannered.learn([1, 2, 3, 4].map(withBanner));
    expect(bannered.strip(withBanner(5), "https://acme.test/p5").markdown).toBe("# Page 5\n\nText 5.");
    // Three pages say nothing about a site.
    const young = new SiteTemplate();
    young.learn([1, 2, 3].map(page));
    expect(young.strip(page(4)).stripped).toBe(false);
  });
});
