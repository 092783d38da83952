// The site reader's parts, run inside workerd (so they are proven to run in a Worker):
// sitemaps, scope and globs, and HTML → Markdown on real Sphinx pages from Python's documentation
// (robots.txt has its own file, site-robots.test.ts).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { htmlToPage } from "../../src/readers/site/html.ts";
import { MAX_ELEMENT_DEPTH } from "../../src/readers/site/parse-html.ts";
import { globMatcher, inScope, publicUrlFor, scopeOf } from "../../src/readers/site/scope.ts";
import { parseSitemap } from "../../src/readers/site/sitemap.ts";
import { chunkDocument } from "../../src/documents/ingest/chunk-page.ts";
import { sectionLink } from "../../src/tools/search-documents.ts";
import sortingHtml from "../fixtures/html/python-howto-sorting.html?raw";
import tomllibHtml from "../fixtures/html/python-library-tomllib.html?raw";

describe("sitemaps", () => {
  it("reads a urlset's locations, entities and CDATA decoded", () => {
    const xml = `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
      <url><loc>https://a.dev/x?a=1&amp;b=2</loc><lastmod>2024-01-01</lastmod></url>
      <url><loc><![CDATA[https://a.dev/y]]></loc></url></urlset>`;
    expect(parseSitemap(xml)).toEqual({ kind: "urlset", locations: ["https://a.dev/x?a=1&b=2", "https://a.dev/y"] });
  });

  it("tells an index from a urlset, and refuses what is neither", () => {
    expect(parseSitemap("<sitemapindex><sitemap><loc>https://a.dev/s1.xml</loc></sitemap></sitemapindex>")).toEqual({ kind: "index", locations: ["https://a.dev/s1.xml"] });
    expect(parseSitemap("<html><body>not found</body></html>")).toBeNull();
  });

  it("scans unclosed <loc> tags in one pass (issue 39, row 2: 100 KB took 7 s, 1 MB hung the crawl)", () => {
    const unclosed = `<urlset>${"<url><loc>https://a.dev/x".repeat(50_000)}</urlset>`;
    expect(unclosed.length).toBeGreaterThan(1_000_000);
    expect(parseSitemap(unclosed)).toEqual({ kind: "urlset", locations: [] });
    // Closed ones before an unclosed run are still read; a run of openers closed at the very end is markup, not a URL.
    const mixed = `<urlset><url><loc>https://a.dev/first</loc></url>${"<loc>".repeat(200_000)}https://a.dev/last</loc></urlset>`;
    expect(parseSitemap(mixed)?.locations).toEqual(["https://a.dev/first"]);
  });

  it("reads any mix of open, closed and stray tags as the lazy regex it replaced did, markup left out", () => {
    const reference = (xml: string) =>
      [...xml.matchAll(/<(?:[\w-]+:)?loc>\s*(?:<!\[CDATA\[)?([\s\S]*?)(?:\]\]>)?\s*<\/(?:[\w-]+:)?loc>/g)]
        .map((match) => (match[1] ?? "").trim())
        .filter((text) => text !== "" && !text.includes("<"));
    const token = fc.constantFrom("<loc>", "</loc>", "<ns:loc>", "</ns:loc>", "<url>", "</url>", "https://a.dev/x", " ", "\n", "<![CDATA[", "]]>", "y");
    fc.assert(
      fc.property(fc.array(token, { maxLength: 40 }), (tokens) => {
        const xml = `<urlset>${tokens.join("")}</urlset>`;
        expect(parseSitemap(xml)?.locations).toEqual(reference(xml));
      }),
      { numRuns: 2_000 },
    );
  });

  it("reads 50,000 locations, the most sitemaps.org allows in one file, prefixed tags included", () => {
    const urls = Array.from({ length: 50_000 }, (_, index) => `https://a.dev/page-${index}`);
    const xml = `<ns:urlset>${urls.map((url, index) => (index % 2 ? `<url><loc>${url}</loc></url>` : `<url><ns:loc> <![CDATA[${url}]]> </ns:loc></url>`)).join("\n")}</ns:urlset>`;
    expect(parseSitemap(xml)).toEqual({ kind: "urlset", locations: urls });
  });
});

describe("scope, names and globs", () => {
  it("covers the start URL's folder", () => {
    expect(scopeOf("http://127.0.0.1:8000/3/index.html")).toMatchObject({ origin: "http://127.0.0.1:8000", prefix: "/3/" });
    expect(scopeOf("https://x.dev/docs").prefix).toBe("/docs/");
    const scope = scopeOf("https://x.dev/docs/");
    expect(inScope(scope, "https://x.dev/docs/a/b")).toBe(true);
    expect(inScope(scope, "https://x.dev/blog/a")).toBe(false);
    expect(inScope(scope, "https://evil.dev/docs/a")).toBe(false);
    expect(() => scopeOf("ftp://x.dev/")).toThrow(/https:\/\//);
  });

  it("maps the crawled folder onto the public base URI", () => {
    const toPublic = publicUrlFor(scopeOf("http://127.0.0.1:8000/index.html"), "https://docs.python.org/3/");
    expect(toPublic("http://127.0.0.1:8000/howto/sorting.html#key-functions")).toBe("https://docs.python.org/3/howto/sorting.html#key-functions");
    expect(toPublic("https://github.com/python/cpython")).toBe("https://github.com/python/cpython");
  });

  it("matches globs against paths: * within a segment, ** across", () => {
    expect(globMatcher("/library/**")("/library/os/path.html")).toBe(true);
    expect(globMatcher("/library/*")("/library/os/path.html")).toBe(false);
    expect(globMatcher("genindex*")("/3/genindex-A.html")).toBe(true);
    expect(globMatcher("genindex*")("/3/library/genindex.txt/x")).toBe(false);
  });
});

describe("HTML to Markdown on Python's real Sphinx pages", () => {
  const sorting = htmlToPage(sortingHtml, { url: "http://127.0.0.1:8000/howto/sorting.html", publicUrl: publicUrlFor(scopeOf("http://127.0.0.1:8000/"), "https://docs.python.org/3") });

  it("titles the page from its h1, not the <title> with the site's name", () => {
    expect(sorting.title).toBe("Sorting HOW TO");
    expect(sorting.description).toBe("");
  });

  it("keeps the article and drops navigation, sidebars, previous/next and permalinks", () => {
    expect(sorting.markdown).toMatch(/^# Sorting HOW TO \{#sorting-how-to\}/);
    for (const chrome of ["Table of Contents", "Previous topic", "Next topic", "Report a Bug", "Quick search", "¶", "Socket Programming HOWTO"]) {
      expect(sorting.markdown).not.toContain(chrome);
    }
  });

  it("drops the marks other generators print as permalinks (Node's #, rustdoc's §, a footnote's ↩), so titles and heading paths end in words", () => {
    const node = htmlToPage(
      `<title>Util | Node.js v18.20.4 Documentation</title><div id="apicontent"><h2>Util<span><a class="mark" href="#util" id="util">#</a></span><a aria-hidden="true" class="legacy" id="util_util"></a></h2>
       <p>See <a href="#util_util">Util</a>.<sup><a href="#fn1" id="r1">1</a></sup></p><h3 id="m">inspect<a href="#m" class="anchor">§</a></h3><p>Note.<a href="#r1">↩</a></p></div>`,
      { url: "https://nodejs.org/api/util.html" },
    );
    expect(node.title).toBe("Util");
    expect(node.markdown).not.toMatch(/[#§↩]\]\(/);
    expect(node.markdown).toMatch(/^## Util \{#util_util\}/);
    expect(node.markdown).toContain("### inspect {#m}");
    expect(node.markdown).toContain("[Util](https://nodejs.org/api/util.html#util_util)");
    expect(node.markdown).toContain("[1](https://nodejs.org/api/util.html#fn1)");
  });

  it("gives headings the page's own section ids, which the chunker takes as anchors", () => {
    expect(sorting.markdown).toContain("## Key Functions {#key-functions}");
    const ids = chunkDocument(sorting.title, sorting.markdown).map((chunk) => chunk.id);
    expect(ids).toContain("sorting-basics");
    expect(ids).toContain("operator-module-functions");
  });

  it("keeps code byte for byte with the language Sphinx marks", () => {
    expect(sorting.markdown).toContain("```pycon\n>>> sorted([5, 2, 3, 1, 4])\n[1, 2, 3, 4, 5]\n```");
    expect(sorting.markdown).toContain("...     ('john', 'A', 15),");
  });

  it("makes links absolute on the public site, fragments kept", () => {
    expect(sorting.markdown).toContain("(https://docs.python.org/3/library/stdtypes.html#list.sort");
    expect(sorting.links).toContain("http://127.0.0.1:8000/howto/unicode.html");
    expect(sorting.canonical).toBe("file:///usr/share/doc/python3.11/html/howto/sorting.html");
  });

  it("turns tables into Markdown tables and API entries into headings with their ids", () => {
    const tomllib = htmlToPage(tomllibHtml, { url: "http://127.0.0.1:8000/library/tomllib.html" });
    expect(tomllib.markdown).toMatch(/\| TOML \| Python \|\n\| -+ \| -+ \|\n\| table \| dict \|/);
    expect(tomllib.markdown).toContain("\n## tomllib.load(fp, /, \\*, parse_float=float) {#tomllib.load}\n");
    expect(chunkDocument(tomllib.title, tomllib.markdown).map((chunk) => chunk.id)).toContain("tomllib.loads");
  });
});

describe("HTML to Markdown: what a reader does not see", () => {
  const html = `<!doctype html><html><head><title>Guide | Example</title>
    <meta property="og:title" content="The Guide"><meta name="description" content="All about it.">
    <link rel="canonical" href="/docs/guide"></head><body>
    <header><a href="/">Home</a></header><nav><a href="/docs/other">Other</a></nav>
    <main><article><header><h1>Guide</h1></header>
      <p>Visible text with <a href="../api#x">a link</a>.</p>
      <p hidden>hidden attribute</p><div style="color:red; display: none">display none</div>
      <span style="font-size:0">font size zero</span><span style="opacity: 0 !important">opacity zero</span><span style="opacity:0.8">faded but shown</span>
      <span aria-hidden="true">aria hidden</span>
      <h2><span id="setup"></span>Set up</h2><p>Steps.</p>
      <pre><code class="language-ts">const a = 1;\n\n  indented();</code></pre>
      <div class="pagination"><a rel="prev" href="/docs/a">Previous</a><a rel="next" href="/docs/b">Next</a></div>
    </article></main><aside>Sidebar</aside><footer>Footer</footer></body></html>`;
  const page = htmlToPage(html, { url: "https://x.dev/docs/guide/index.html" });

  it("drops hidden HTML: the hidden attribute, display:none and aria-hidden", () => {
    for (const text of ["hidden attribute", "display none", "font size zero", "opacity zero", "aria hidden", "Sidebar", "Footer", "Previous", "Next", "Other", "Home"]) expect(page.markdown).not.toContain(text);
    expect(page.markdown).toContain("faded but shown");
    expect(page.markdown).toContain("Visible text with [a link](https://x.dev/docs/api#x).");
  });

  it("prefers og:title, reads the description and resolves the canonical link", () => {
    expect(page).toMatchObject({ title: "The Guide", description: "All about it.", canonical: "https://x.dev/docs/guide" });
  });

  it("keeps a header around the article's h1, anchors a heading by the empty span before or in it, and keeps code exactly", () => {
    // The title heading has no id on the page: it links to the page, before the first named section.
    expect(page.markdown).toMatch(/^# Guide \{#intro-part-2\}\n/);
    expect(page.markdown).toContain("## Set up {#setup}");
    expect(page.markdown).toContain("```ts\nconst a = 1;\n\n  indented();\n```");
  });

  it("anchors a heading by the nearest element it opens, however deep (DocBook's div.sect1 around div.titlepage)", () => {
    const docbook = htmlToPage(
      `<body><div class="chapter" id="DATATYPE"><div class="titlepage"><div><div><h1 class="title">8. Data Types</h1></div></div></div>
       <p>Intro.</p><div class="sect1" id="DATATYPE-JSON"><div class="titlepage"><div><div><h2 class="title">8.14. JSON Types</h2></div></div></div>
       <p>JSON text.</p><div class="sect2" id="JSON-KEYS"><div class="titlepage"><div><div><h3 class="title">8.14.1. Keys</h3></div></div></div><p>Keys.</p></div>
       <div class="sect2"><div class="titlepage"><h3 class="title">8.14.2. Unnamed</h3></div><p>No id here.</p></div></div></div></body>`,
      { url: "https://x.dev/datatype.html" },
    );
    expect(docbook.markdown).toContain("# 8. Data Types {#DATATYPE}");
    expect(docbook.markdown).toContain("## 8.14. JSON Types {#DATATYPE-JSON}");
    expect(docbook.markdown).toContain("### 8.14.1. Keys {#JSON-KEYS}");
    // A wrapper whose first heading is another one's names nothing here: the heading links to the named section before it.
    expect(docbook.markdown).toContain("### 8.14.2. Unnamed {#JSON-KEYS-part-2}\n");
  });

  it("links a chunk only to anchors the page has: an unnamed section and a long section's pieces to the named section before them", () => {
    const page = htmlToPage(`<main><h1>Guide</h1><p>${"Lead text. ".repeat(30)}</p><h2 id="setup">Set up</h2><p>Steps.</p><h3>Details</h3><p>${"Long text. ".repeat(400)}</p><p>${"More text. ".repeat(400)}</p></main>`, {
      url: "https://x.dev/guide",
    });
    const links = chunkDocument(page.title, page.markdown).map((chunk) => sectionLink("https://x.dev/guide", chunk.id));
    expect(new Set(links)).toEqual(new Set(["https://x.dev/guide", "https://x.dev/guide#setup"]));
  });

  it("reads every <article> when a page has several side by side (Erlang's functions), not the first alone", () => {
    const reference = htmlToPage(
      `<body><nav><a href="/">Home</a></nav><div id="content"><h1>lists</h1><p>List processing.</p>
       <article class="func"><h4 id="all-2">all(Pred, List) -> boolean()</h4><h3 id="types">Types</h3><p>Returns true if Pred(Elem) returns true for all elements.</p></article>
       <article class="func"><h4 id="any-2">any(Pred, List) -> boolean()</h4><h3 id="types">Types</h3><p>Pred = fun((Elem) -> boolean())</p><p>Returns true if Pred(Elem) returns true for at least one element.</p></article></div></body>`,
      { url: "https://x.dev/lists.html" },
    );
    expect(reference.markdown).toContain("List processing.");
    expect(reference.markdown).toContain("#### all(Pred, List) -> boolean() {#all-2}");
    expect(reference.markdown).toContain("#### any(Pred, List) -> boolean() {#any-2}");
    // Every function repeats id="types": the page's own first one, the others linking to their function.
    expect(reference.markdown).toContain("### Types {#types}");
    expect(reference.markdown).toContain("### Types {#any-2-part-2}");
    expect(reference.markdown).not.toContain("Home");
  });

  it("drops links with nothing to read (index-term targets, icon links) instead of printing []()", () => {
    const terms = htmlToPage(`<main><p><a class="indexterm" name="idx-1"></a>Use <a href="/a">a link</a> and <a href="/b"><i class="icon"></i></a><a href="/c"><img src="/c.png" alt="C"></a>.</p></main>`, {
      url: "https://x.dev/",
    });
    expect(terms.markdown).toBe("Use [a link](https://x.dev/a) and [![C](https://x.dev/c.png)](https://x.dev/c).");
  });

  it("keeps a table a table when its cells hold paragraphs, code or lists: the blocks joined with <br>", () => {
    const functions = htmlToPage(
      `<main><table><thead><tr><th><p>Function</p><p>Description</p></th><th>Example</th></tr></thead><tbody><tr>
       <td><p><code>generate_series</code> ( <code>start</code> integer ) → <code>setof integer</code></p><p>Generates a series.</p><pre>select 1;\nselect 2;</pre></td>
       <td><ul><li>one</li><li>two</li></ul></td></tr></tbody></table></main>`,
      { url: "https://x.dev/" },
    );
    expect(functions.markdown).toBe(
      "| Function<br>Description | Example |\n| - | - |\n| `generate_series` ( `start` integer ) → `setof integer`<br>Generates a series.<br>`select 1; select 2;` | one<br>two |",
    );
  });

  it("uses --content-selector before main, and the body without chrome when nothing matches", () => {
    const custom = htmlToPage(`<body><div class="doc"><p>Only this</p></div><main><p>Not this</p></main></body>`, { url: "https://x.dev/", contentSelector: ".doc" });
    expect(custom.markdown).toBe("Only this");
    const bare = htmlToPage(`<body><nav>Menu</nav><p>Body text</p><footer>f</footer></body>`, { url: "https://x.dev/" });
    expect(bare.markdown).toBe("Body text");
  });

  it("reads struck-out text (<del>, <s>) as GFM strikethrough instead of failing the page", () => {
    // SQLite's pages use <del>: before, mdast-util-to-markdown threw "unknown node `delete`" and the whole crawl stopped.
    const struck = htmlToPage(`<main><p>Use <del>old()</del> <s>older()</s> new().</p></main>`, { url: "https://x.dev/" });
    expect(struck.markdown).toBe("Use ~~old()~~ ~~older()~~ new().");
  });
});

describe("HTML to Markdown: no empty links, no page cut to one item (issue 34)", () => {
  const read = (body: string) => htmlToPage(`<html><head><title>T</title></head><body>${body}</body></html>`, { url: "https://x.test/docs/p.html" }).markdown;

  it("drops anchors with no text and images without alt text, never printing `[]()` or `![]()`", () => {
    const markdown = read(
      `<main><h1>Page</h1><p><a class="indexterm" name="x1"></a>Commit <a href="a.html"> </a>first.</p>` +
        `<p><a href="https://www.adobe.com/"><img src="/images/adobe.gif"></a> <img src="/images/commit-0.gif" alt=" "> Pictures.</p>` +
        `<table><tr><td><a href="https://loc.gov/"><img src="loc.jpg"></a></td><td>Library</td></tr><tr><td>a</td><td>b</td></tr></table></main>`,
    );
    expect(markdown).not.toMatch(/\[\]\(/);
    expect(markdown).not.toContain("adobe.gif");
    expect(markdown).toContain("Commit first.");
    expect(markdown).toContain("Pictures.");
    expect(markdown).toContain("Library");
  });

  it("keeps a link whose only content is an image with alt text, as that image", () => {
    const markdown = read(`<main><h1>Page</h1><p><a href="big.png"><img src="small.png" alt="The commit diagram"></a></p></main>`);
    expect(markdown).toContain("[![The commit diagram](https://x.test/docs/small.png)](https://x.test/docs/big.png)");
  });

  it("keeps the page around an <article> that is one item of it: the h1 and the module's description too", () => {
    const markdown = read(
      `<aside><nav><a href="a.html">A</a></nav></aside><div id="content"><div><center><h1>logger_disk_log_h</h1></center></div>` +
        `<section class="description"><p>A disk_log based handler for Logger.</p></section>` +
        `<section><article class="func"><h4 id="filesync-1">filesync(Name)</h4><p>Write buffered data to disk.</p></article></section></div>`,
    );
    expect(markdown).toContain("# logger_disk_log_h");
    expect(markdown).toContain("A disk_log based handler for Logger.");
    expect(markdown).toContain("Write buffered data to disk.");
    expect(markdown).not.toContain("[A]");
  });

  it("still takes an <article> holding the h1 as the page, and a site name's h1 in the header does not widen it", () => {
    const markdown = read(`<header><h1>Example Docs</h1></header><div><p>Sidebar blurb.</p><article><h1>Guide</h1><p>Body.</p></article></div>`);
    expect(markdown).toMatch(/^# Guide\b[^\n]*\n\nBody\.$/);
  });
});

describe("HTML to Markdown: hostile shapes, linear and within the stack (issue 39, row 3)", () => {
  const read = (main: string) => htmlToPage(`<html><body><main>${main}</main></body></html>`, { url: "https://x.dev/" });

  it("reads a page nested 3,000 and 100,000 levels deep: the text above the depth cap is kept, nothing overflows", () => {
    // Was "Maximum call stack size exceeded" for the whole crawl at 2,000 levels.
    const levels = read(`<p>Intro.</p>${"<div>level ".repeat(3_000)}`);
    expect(levels.markdown.startsWith("Intro.")).toBe(true);
    const kept = levels.markdown.split("level").length - 1;
    // <html>, <body> and <main> take three of the levels.
    expect(kept).toBe(MAX_ELEMENT_DEPTH - 3);
    expect(read(`<p>Intro.</p>${"<div>".repeat(100_000)}deep`).markdown).toBe("Intro.");
  });

  it("keeps emphasis three deep and unwraps the rest: 200 <em>s and 100 <em><strong>s convert (they took 66 s and 27 s)", () => {
    expect(read(`<p>${"<em>".repeat(200)}x${"</em>".repeat(200)} after</p>`).markdown).toBe("_*_x_*_ after");
    const alternating = read(`<p>${"<em>a <strong>b ".repeat(100)}end</p>`).markdown;
    expect(alternating.startsWith("_a **b _a ")).toBe(true);
    expect(alternating.match(/[ab] /g)).toHaveLength(200);
    expect(alternating).toContain("end");
  });

  it("reads any nesting of block, list, table and emphasis tags, thousands deep, keeping the text above the cap", () => {
    const open = fc.constantFrom("<div>", "<ul><li>", "<blockquote>", "<em>", "<strong>", "<table><tr><td>", "<section>", "<a href='/x'>", "<span>", "<pre>", "<p>");
    fc.assert(
      fc.property(fc.array(open, { minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 3_000 }), (tags, repeats) => {
        const page = read(`<p>Top text.</p>${tags.join("word ").repeat(repeats)}`);
        expect(page.markdown.startsWith("Top text.")).toBe(true);
      }),
      { numRuns: 25 },
    );
  });

  it("finds the one visible <main> among 20,000 hidden ones in one walk (it took 15 s)", () => {
    const page = htmlToPage(`<html><body>${'<main hidden>hidden</main>'.repeat(20_000)}<main><p>The article.</p></main></body></html>`, { url: "https://x.dev/" });
    expect(page.markdown).toBe("The article.");
  });

  it("anchors 5,000 sibling headings, each by the empty span before it, in one pass over the siblings", () => {
    const page = read(Array.from({ length: 5_000 }, (_, index) => `<span id="s${index}"></span><h2>Step</h2><p>Do ${index}.</p>`).join(""));
    expect(page.markdown.match(/^## Step \{#s\d+\}$/gm)).toHaveLength(5_000);
    expect(page.markdown).toContain("## Step {#s4999}\n\nDo 4999.");
  });
});
