// Private documentation against real D1 (src/documents/access/visibility.ts): a data
// source restricted to audience "ops" beside Almanac's own pages. Reads that
// are not told who reads show public sources only; a viewer of "ops" sees
// both; and nothing a hidden source holds changes what another caller gets,
// not even whether Almanac's own pages step aside (their rule is "only while
// no other pages exist", which a hidden source must not tip).
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { answerQuery } from "../../src/documents/answer/answer-query.ts";
import { prepareSite, siteFor } from "../../src/documents/ingest/prepare-pages.ts";
import { syncDocuments } from "../../src/documents/ingest/write-corpus.ts";
import { countDocuments, findDocuments, listDocuments } from "../../src/documents/read/stored-documents.ts";
import { searchDocuments } from "../../src/documents/search/search-documents.ts";
import { compileFilter } from "../../src/documents/search/filter.ts";
import { audienceList, setSourceAudiences, viewerWith, visibilityFor, withVisibility } from "../../src/documents/access/visibility.ts";
import { vectorizeFilter } from "../../src/embeddings/vectorize-index.ts";
import { recordAccess, readAuditLog } from "../../src/documents/access/audit.ts";
import { collectTimings, RequestTimings } from "../../src/observability/timings.ts";
import { loadCorpus } from "../support/corpus.ts";

const HIDDEN = "ops.internal.example";
const PAGE = `documents/${HIDDEN}/restart`;
/** A question Almanac's own pages answer ("quota"), which the hidden page answers too. */
const QUERY = "answer_query quota per minute";

beforeAll(async () => {
  await loadCorpus();
  await setSourceAudiences(env.DB, HIDDEN, ["ops"]);
  const site = siteFor(`https://${HIDDEN}`);
  const { documents } = await prepareSite(
    [{ path: "restart.md", text: "# Restarting the quota service\n\nThe answer_query quota per minute is reset by the ops restart script, zephyrine." }],
    site,
  );
  await syncDocuments(env.DB, site, documents, { prune: false });
});

describe("a data source restricted to an audience", () => {
  it("is hidden from reads that name no viewer, and from viewers of other audiences", async () => {
    for (const viewer of [undefined, viewerWith(["sales"])]) {
      expect((await findDocuments(env.DB, [PAGE], viewer)).size).toBe(0);
      expect((await listDocuments(env.DB, "", 1000, viewer)).documents.map((doc) => doc.dataSource)).not.toContain(HIDDEN);
      expect((await searchDocuments(env.DB, { query: "zephyrine", ...(viewer ? { viewer } : {}) })).results).toEqual([]);
    }
    const ops = viewerWith(["ops"]);
    expect((await findDocuments(env.DB, [PAGE], ops)).get(PAGE)?.title).toBe("Restarting the quota service");
    expect((await searchDocuments(env.DB, { query: "zephyrine", viewer: ops })).results[0]?.parent).toBe(PAGE);
    expect(await countDocuments(env.DB, ops)).toBe((await countDocuments(env.DB)) + 1);
  });

  it("does not tip Almanac's own pages into stepping aside: a caller who sees no other source gets them", async () => {
    // Only Almanac's pages and the hidden source exist: for anyone who cannot see it, Almanac's are the only pages.
    const anonymous = await searchDocuments(env.DB, { query: QUERY });
    expect(anonymous.results.length).toBeGreaterThan(0);
    expect(anonymous.results.every((hit) => hit.document.dataSource === "almanac.dev")).toBe(true);
    expect((await answerQuery(env.DB, { query: "How many answer_query calls per minute may a key make?" })).references.length).toBeGreaterThan(0);
    // For ops, another source exists: Almanac's pages step aside, as they do beside any user's docs.
    const ops = await searchDocuments(env.DB, { query: QUERY, viewer: viewerWith(["ops"]) });
    expect(ops.results.map((hit) => hit.document.dataSource)).toEqual([HIDDEN]);
  });

  it("records what a viewer was given of it, and the audit log keeps names, never text", async () => {
    const ops = viewerWith(["ops"]);
    await findDocuments(env.DB, [PAGE, "documents/almanac.dev/docs/filters"], ops);
    expect([...ops.touched.keys()]).toEqual([HIDDEN]);
    await recordAccess(env.DB, { keyId: "key_0123456789ab" }, "rest", "batchGet", ops, new Date("2026-12-01T00:00:00Z"));
    const [row] = await readAuditLog(env.DB, { keyId: "key_0123456789ab", limit: 10 });
    expect(row).toEqual({ time: "2026-12-01T00:00:00.000Z", keyId: "key_0123456789ab", audiences: ["ops"], door: "rest", tool: "batchGet", dataSources: [HIDDEN], documents: [PAGE] });
    const sales = viewerWith(["sales"]);
    await findDocuments(env.DB, [PAGE], sales);
    expect(sales.touched.size).toBe(0);
  });
});

describe("reading what a viewer sees in the read's own round trip", () => {
  async function d1Calls(read: () => Promise<unknown>): Promise<number> {
    const timings = new RequestTimings();
    await collectTimings(timings, read);
    return timings.counts.get("d1") ?? 0;
  }

  it("searches and gets in one round trip while the audiences stay as last read", async () => {
    await searchDocuments(env.DB, { query: "zephyrine" });
    expect(await d1Calls(() => searchDocuments(env.DB, { query: "zephyrine restart" }))).toBe(1);
    expect(await d1Calls(() => findDocuments(env.DB, [PAGE], viewerWith(["ops"])))).toBe(1);
  });

  it("sees a change of audiences at the very next read, though it built its statements from the ones read before", async () => {
    expect((await searchDocuments(env.DB, { query: "zephyrine" })).results).toEqual([]);
    await setSourceAudiences(env.DB, HIDDEN, []);
    try {
      expect((await searchDocuments(env.DB, { query: "zephyrine" })).results.map((hit) => hit.parent)).toEqual([PAGE]);
      expect((await findDocuments(env.DB, [PAGE])).size).toBe(1);
    } finally {
      await setSourceAudiences(env.DB, HIDDEN, ["ops"]);
    }
    expect((await searchDocuments(env.DB, { query: "zephyrine" })).results).toEqual([]);
    expect((await findDocuments(env.DB, [PAGE])).size).toBe(0);
    expect((await answerQuery(env.DB, { query: "What does the ops restart script zephyrine reset?" })).references).not.toContain(PAGE);
  });
});

describe("visibility in filters", () => {
  it("adds one conjunct, and the constraints Vectorize's metadata filter applies", async () => {
    const visibility = await visibilityFor(env.DB, viewerWith([]));
    expect(visibility.hidden).toEqual([HIDDEN]);
    const own = compileFilter('data_source != "go.dev"');
    const both = withVisibility(own, visibility);
    expect(both?.sql).toBe(`(${own?.sql}) AND (d.data_source NOT IN (SELECT value FROM json_each(?)))`);
    expect(vectorizeFilter(both?.constraints)).toEqual({ data_source: { $nin: ["go.dev", HIDDEN] } });
    expect(vectorizeFilter(withVisibility(null, visibility)?.constraints)).toEqual({ data_source: { $nin: [HIDDEN] } });
    expect(withVisibility(own, await visibilityFor(env.DB, viewerWith(["ops"])))).toBe(own);
  });

  it("reads audience names as the CLI takes them", () => {
    expect(audienceList(" Ops, sre ,ops")).toEqual(["ops", "sre"]);
    expect(() => audienceList("team a")).toThrow(/not a name/);
    expect(() => audienceList(",")).toThrow(/at least one name/);
  });
});
