// `npm run ingest -- site` on a real documentation site: Python's HTML documentation
// (Sphinx, about 500 pages) from Debian's python3-doc, served by a local HTTP server the
// test starts, ingested under its public URL, then searched through `npm start`.
import { existsSync, realpathSync, rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newStateDir, startServer, type RunningServer } from "./support/harness.ts";
import { ingestAsync, serveSite, type StaticSite } from "./support/static-site.ts";

/** Where Debian's python3-doc puts the HTML (a symlink to the versioned folder). */
const PYTHON_DOCS = ["/usr/share/doc/python3/html", "/usr/share/doc/python3-doc/html"].find((dir) => existsSync(`${dir}/howto/sorting.html`));

interface Hit {
  parent: string;
  id: string;
  content: string;
  document: { uri: string; title: string };
}

if (!PYTHON_DOCS) {
  console.warn("SKIPPED site-python.e2e: Debian's python3-doc is not installed (apt-get install python3-doc; .ci/run installs it)");
}

describe.skipIf(!PYTHON_DOCS)("ingesting Python's documentation site", () => {
  const stateDir = newStateDir();
  let site: StaticSite;
  let server: RunningServer | undefined;
  let first: Awaited<ReturnType<typeof ingestAsync>>;

  beforeAll(async () => {
    site = await serveSite(realpathSync(PYTHON_DOCS as string));
    first = await ingestAsync(["site", `${site.url}/index.html`, "--base-uri", "https://docs.python.org/3/", "--persist-to", stateDir]);
    console.log(`python docs, first run: ${Math.round(first.ms / 1000)} s\n${first.output.split("\n").filter((line) => line.startsWith("https://") || line.includes(": skipped, ")).join("\n")}`);
    expect(first.status, first.output).toBe(0);
    server = await startServer([], stateDir);
  }, 1_200_000);

  afterAll(async () => {
    await server?.stop();
    await site?.close();
    rmSync(stateDir, { recursive: true, force: true });
  });

  async function search(query: string): Promise<Hit[]> {
    const response = await fetch(`${server?.url}/v1/documents:searchDocumentChunks?query=${encodeURIComponent(query)}`);
    expect(response.status).toBe(200);
    return ((await response.json()) as { results: Hit[] }).results;
  }

  async function document(name: string): Promise<{ content: string; title: string; uri: string }> {
    const response = await fetch(`${server?.url}/v1/${name}`);
    expect(response.status, name).toBe(200);
    return (await response.json()) as { content: string; title: string; uri: string };
  }

  it("reads the whole site by its links and names every page under docs.python.org/3", () => {
    const summary = first.output.split("\n").find((line) => line.startsWith("https://docs.python.org/3:")) ?? "";
    const added = Number(/(\d+) added/.exec(summary)?.[1]);
    expect(added, summary).toBeGreaterThan(450);
    expect(summary).toContain("from links");
    expect(summary).not.toContain("stopped at");
    // Python's pages name a file:/// canonical link: noted, never used.
    expect(first.output).toMatch(/howto\/sorting\.html: canonical file:\/\/\/usr\/share\/doc\/python3\.11\/html\/howto\/sorting\.html ignored/);
  });

  it("stores the article text with code and tables intact and no navigation", async () => {
    const sorting = await document("documents/docs.python.org/3/howto/sorting.html");
    expect(sorting).toMatchObject({ title: "Sorting HOW TO", uri: "https://docs.python.org/3/howto/sorting.html" });
    expect(sorting.content).toContain("```pycon\n>>> from operator import itemgetter, attrgetter\n\n>>> sorted(student_tuples, key=itemgetter(2))\n[('dave', 'B', 10), ('jane', 'B', 12), ('john', 'A', 15)]\n");
    for (const chrome of ["Table of Contents", "Previous topic", "Quick search", "Report a Bug", "¶"]) expect(sorting.content).not.toContain(chrome);
    const tomllib = await document("documents/docs.python.org/3/library/tomllib.html");
    expect(tomllib.content).toMatch(/\| TOML \| Python \|\n\| -+ \| -+ \|/);
  });

  it("finds the sorting HOWTO for an ordinary question, its chunks linking to the site's own section ids", async () => {
    const hits = await search("how do I sort a list of dictionaries by a key");
    const parents = hits.slice(0, 5).map((hit) => hit.parent);
    expect(parents, JSON.stringify(hits.slice(0, 5).map((hit) => `${hit.parent}#${hit.id}`))).toContain("documents/docs.python.org/3/howto/sorting.html");
    const sortingIds = new Set(hits.filter((hit) => hit.parent.endsWith("/howto/sorting.html")).map((hit) => hit.id));
    const sectionIds = ["sorting-how-to", "sorting-basics", "key-functions", "operator-module-functions", "ascending-and-descending", "sort-stability-and-complex-sorts", "decorate-sort-undecorate", "comparison-functions", "odds-and-ends"];
    expect([...sortingIds].every((id) => sectionIds.some((section) => id === section || id.startsWith(`${section}-part-`))), [...sortingIds].join(", ")).toBe(true);
    const functions = await search("sorted function key reverse arguments");
    expect(functions.map((hit) => `${hit.parent}#${hit.id}`)).toContain("documents/docs.python.org/3/library/functions.html#sorted");
  });

  it("asks conditionally the second time: every page a 304, all unchanged", async () => {
    const before = site.requests.length;
    const second = await ingestAsync(["site", `${site.url}/index.html`, "--base-uri", "https://docs.python.org/3/", "--persist-to", stateDir]);
    console.log(`python docs, second run: ${Math.round(second.ms / 1000)} s`);
    expect(second.status, second.output).toBe(0);
    const summary = second.output.split("\n").find((line) => line.startsWith("https://docs.python.org/3:")) ?? "";
    expect(summary).toMatch(/^https:\/\/docs\.python\.org\/3: 0 added, 0 updated, \d+ unchanged, 0 removed/);
    const pages = site.requests.slice(before).filter((request) => request.path.endsWith(".html"));
    expect(pages.length).toBeGreaterThan(450);
    // The site's own index (genindex-*, py-modindex) is read for its terms, not stored, so it has no stored page to
    // revalidate and is asked for again; a numbered table of contents (tutorial/index.html) is a page like any other.
    const indexPaths = new Set(first.output.split("\n").filter((line) => line.includes(": a back-of-book index:")).map((line) => new URL(line.trim().split(": ")[0] ?? "").pathname));
    expect([...indexPaths].filter((path) => path.startsWith("/genindex-")).length, [...indexPaths].join(" ")).toBeGreaterThan(10);
    expect([...indexPaths]).toContain("/py-modindex.html");
    expect([...indexPaths]).not.toContain("/tutorial/index.html");
    // Debian's package lacks a page or two that others link to (whatsnew/changelog.html): those stay 404s.
    expect(pages.filter((request) => !indexPaths.has(request.path) && request.status !== 304 && request.status !== 404)).toEqual([]);
    expect(pages.filter((request) => request.status === 304).length).toBeGreaterThan(450);
    expect(pages.filter((request) => request.status !== 404 && !indexPaths.has(request.path)).every((request) => request.conditional && /^Almanac\/\d+\.\d+\.\d+/.test(request.userAgent))).toBe(true);
    expect(pages.filter((request) => indexPaths.has(request.path)).every((request) => /^Almanac\/\d+\.\d+\.\d+/.test(request.userAgent))).toBe(true);
  }, 900_000);
});
