// Two versions of one site that disagree (test/fixtures/versions): v2 renames
// --output-dir to --out and raises the build timeout's default from 30 to 120
// seconds. Against real D1: the current version is what search and answers
// see, a filter picks another, answers never mix them, --current flips them,
// and removing a version removes exactly its pages.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { answerWithSources } from "../../src/documents/answer/answer-query.ts";
import { prepareSite, siteFor } from "../../src/documents/ingest/prepare-pages.ts";
import { removeVersion, syncDocuments } from "../../src/documents/ingest/write-corpus.ts";
import { findDocuments, listDocuments } from "../../src/documents/read/stored-documents.ts";
import { searchDocuments } from "../../src/documents/search/search-documents.ts";
import { listVersions, type SiteVersion } from "../../src/documents/versions.ts";

const files = import.meta.glob<string>("../fixtures/versions/v*/*.md", { query: "?raw", import: "default", eager: true });

/** The fixture folder of `label` as an ingestion reads it. */
function folder(label: "v1" | "v2") {
  const prefix = `../fixtures/versions/${label}/`;
  return Object.entries(files)
    .filter(([path]) => path.startsWith(prefix))
    .map(([path, text]) => ({ path: path.slice(prefix.length), text }));
}

/** `npm run ingest -- docs test/fixtures/versions/<label> --base-uri https://bundlr.example/<label> --version <label> [--current]`. */
async function ingest(label: "v1" | "v2", current = false, base = `https://bundlr.example/${label}`) {
  const version: SiteVersion = { label, current };
  const site = siteFor(base, undefined, version);
  const { documents } = await prepareSite(folder(label), site);
  return syncDocuments(env.DB, site, documents, { prune: true });
}

const search = (query: string, filter?: string) => searchDocuments(env.DB, { query, pageSize: 10, ...(filter === undefined ? {} : { filter }) });
const versionsOf = (hits: { document: { version?: string } }[]) => [...new Set(hits.map((hit) => hit.document.version))];

beforeAll(async () => {
  // An unversioned site beside them, as every corpus before versions.
  const plain = siteFor("https://plain.example");
  const { documents } = await prepareSite([{ path: "build.md", text: "# Plain build\n\nThe plain build has no output directory option and no timeout." }], plain);
  await syncDocuments(env.DB, plain, documents, { prune: false });
  await ingest("v1");
  await ingest("v2");
});

describe("two versions of one site, v2 added last", () => {
  it("records both, v2 current as the one added last, each under its own base URI", async () => {
    const versions = await listVersions(env.DB);
    expect(versions.map(({ label, baseUri, isCurrent, pages }) => ({ label, baseUri, isCurrent, pages }))).toEqual([
      { label: "v1", baseUri: "https://bundlr.example/v1", isCurrent: false, pages: 2 },
      { label: "v2", baseUri: "https://bundlr.example/v2", isCurrent: true, pages: 2 },
    ]);
  });

  it("searches v2 by default, and every result names its version", async () => {
    const { results } = await search("output directory option bundlr build");
    expect(results.length).toBeGreaterThan(0);
    const bundlr = results.filter((hit) => hit.document.dataSource === "bundlr.example");
    expect(versionsOf(bundlr)).toEqual(["v2"]);
    expect(bundlr[0]?.parent).toBe("documents/bundlr.example/v2/build");
    expect(bundlr[0]?.content).toContain("--out dist");
  });

  it("keeps unversioned pages in every search, and their shape unchanged (no version field)", async () => {
    const { results } = await search("plain build");
    const plain = results.find((hit) => hit.document.dataSource === "plain.example");
    expect(plain?.document).not.toHaveProperty("version");
    expect(Object.keys(plain?.document ?? {})).toEqual(["name", "uri", "title", "description", "dataSource", "updateTime"]);
  });

  it('searches v1 when the filter says version = "v1"', async () => {
    const { results } = await search("output directory option", 'version = "v1"');
    expect(versionsOf(results)).toEqual(["v1"]);
    expect(results[0]?.content).toContain("--output-dir dist");
  });

  it('searches every version with version = "*", and != leaves one out', async () => {
    expect(new Set(versionsOf((await search("build timeout defaults", 'version = "*"')).results))).toEqual(new Set([undefined, "v1", "v2"]));
    expect(new Set(versionsOf((await search("build timeout defaults", 'version != "v2"')).results))).toEqual(new Set([undefined, "v1"]));
    expect(versionsOf((await search("build timeout defaults", 'data_source = "bundlr.example" AND version = "v2"')).results)).toEqual(["v2"]);
  });

  it("answers from v2 by default, with v2 references only", async () => {
    const { answer, sources } = await answerWithSources(env.DB, { query: "What is the default build timeout of bundlr?" });
    expect(answer.answerText).toContain("120 seconds");
    expect(answer.answerText).not.toContain("30 seconds");
    expect(answer.references.every((name) => name.startsWith("documents/bundlr.example/v2/") || name.startsWith("documents/plain.example/"))).toBe(true);
    expect(answer.referenceVersions?.[0]).toBe("v2");
    expect(sources[0]?.document.version).toBe("v2");
  });

  it('answers from v1 with version = "v1", and from one version only with version = "*"', async () => {
    const old = await answerWithSources(env.DB, { query: "What is the default build timeout of bundlr?", filter: 'version = "v1"' });
    expect(old.answer.answerText).toContain("30 seconds");
    expect(old.answer.referenceVersions?.every((version) => version === "v1")).toBe(true);
    const all = await answerWithSources(env.DB, { query: "bundlr build timeout defaults output directory install", filter: 'version = "*"' });
    const bundlrVersions = new Set(all.sources.filter((hit) => hit.document.dataSource === "bundlr.example").map((hit) => hit.document.version));
    expect(bundlrVersions.size).toBe(1);
    expect(all.answer.answerText.includes("30 seconds") && all.answer.answerText.includes("120 seconds")).toBe(false);
  });

  it("lists v2 and unversioned pages as resources, and fetches v1 by name", async () => {
    const listing = await listDocuments(env.DB, "", 100);
    const names = listing.documents.map((doc) => doc.name);
    expect(names).toContain("documents/bundlr.example/v2/build");
    expect(names).toContain("documents/plain.example/build");
    expect(names.some((name) => name.includes("/v1/"))).toBe(false);
    const found = await findDocuments(env.DB, ["documents/bundlr.example/v1/build"]);
    expect(found.get("documents/bundlr.example/v1/build")?.version).toBe("v1");
  });
});

describe("switching and removing versions", () => {
  it("makes v1 current when re-ingested unchanged with --current, flipping every result, and back", async () => {
    const again = await ingest("v1", true);
    expect(again.added).toEqual([]);
    expect(again.unchanged).toHaveLength(2);
    expect(versionsOf((await search("output directory option")).results.filter((hit) => hit.document.dataSource === "bundlr.example"))).toEqual(["v1"]);
    const { answer } = await answerWithSources(env.DB, { query: "What is the default build timeout of bundlr?" });
    expect(answer.answerText).toContain("30 seconds");
    expect((await listDocuments(env.DB, "", 100)).documents.some((doc) => doc.name.includes("/v2/"))).toBe(false);
    // v1 stays current though v2 was added later: --current wins until another run passes it.
    await ingest("v2");
    expect((await listVersions(env.DB)).find((version) => version.isCurrent)?.label).toBe("v1");
    await ingest("v2", true);
    expect((await listVersions(env.DB)).find((version) => version.isCurrent)?.label).toBe("v2");
  });

  it("removes exactly a version's pages, and the other becomes current", async () => {
    const before = await env.DB.prepare("SELECT name FROM documents ORDER BY name").all<{ name: string }>();
    const { report } = await removeVersion(env.DB, "v2", "bundlr.example");
    expect(report.removed.sort()).toEqual(["documents/bundlr.example/v2/build", "documents/bundlr.example/v2/install"]);
    const after = await env.DB.prepare("SELECT name FROM documents ORDER BY name").all<{ name: string }>();
    expect(after.results.map((row) => row.name)).toEqual(before.results.map((row) => row.name).filter((name) => !name.includes("/v2/")));
    const chunks = await env.DB.prepare("SELECT count(*) AS n FROM chunks WHERE document_name LIKE 'documents/bundlr.example/v2/%'").first<{ n: number }>();
    expect(chunks?.n).toBe(0);
    expect((await listVersions(env.DB)).map(({ label, isCurrent }) => ({ label, isCurrent }))).toEqual([{ label: "v1", isCurrent: true }]);
    expect(versionsOf((await search("output directory option")).results.filter((hit) => hit.document.dataSource === "bundlr.example"))).toEqual(["v1"]);
    await expect(removeVersion(env.DB, "v9")).rejects.toThrow(/no version "v9"; the versions ingested are: "v1" of bundlr.example/);
  });
});

describe("what ingestion refuses", () => {
  it("refuses a base URI that holds another version, saying to give each version its own", async () => {
    await expect(ingest("v2", false, "https://bundlr.example/v1")).rejects.toThrow(
      /https:\/\/bundlr\.example\/v1 holds version "v1" of bundlr\.example; it cannot also be ingested as version "v2"\. Each version needs its own base URI/,
    );
  });

  it("refuses to write a version's pages without a label", async () => {
    const site = siteFor("https://bundlr.example/v1");
    const { documents } = await prepareSite(folder("v1"), site);
    await expect(syncDocuments(env.DB, site, documents, { prune: false })).rejects.toThrow(/holds version "v1" of bundlr.example; it cannot also be ingested without --version/);
  });

  it("refuses a label reserved for the filter or empty", () => {
    expect(() => siteFor("https://x.example", undefined, { label: "*", current: false })).toThrow(/reserved/);
    expect(() => siteFor("https://x.example", undefined, { label: " ", current: false })).toThrow(/--version needs a label/);
  });
});
