// query_library_search: StackQL's scoring, its filters and mutation rules,
// limits, the miss threshold, and the snapshot that answers when D1 fails.
import { env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { EntryMetadata } from "../../src/library/entry.ts";
import { FIELD_WEIGHTS, MISS_THRESHOLD, PHRASE_BONUS, intentTokens, rankEntries, scoreEntry } from "../../src/library/scoring.ts";
import { MISS_GUIDANCE, searchQueryLibrary } from "../../src/library/search.ts";
import { STALE_NOTICE, queryLibrarySearchTool } from "../../src/tools/query-library-search.ts";
import { loadDefaultLibrary, loadStackqlLibrary, preparedStackqlLibrary } from "../support/library-fixtures.ts";

const real = preparedStackqlLibrary().entries;
const byId = (id: string): EntryMetadata => real.find((entry) => entry.id === id) as EntryMetadata;

beforeAll(async () => {
  await loadDefaultLibrary();
  await loadStackqlLibrary();
});

afterEach(() => {
  vi.restoreAllMocks();
});

const ids = (result: { hits: { id: string }[] }) => result.hits.map((hit) => hit.id);

describe("scoring", () => {
  it("uses StackQL's weights, miss threshold and phrase bonus", () => {
    expect(FIELD_WEIGHTS).toEqual({ intent_keywords: 4, title: 3, keywords: 2.5, tags: 2, services: 2, providers: 1.5, description: 1 });
    expect(PHRASE_BONUS).toBe(6);
    expect(MISS_THRESHOLD).toBe(2.5);
  });

  it("lower-cases, splits on non-alphanumerics and drops 1-character words and stopwords", () => {
    expect(intentTokens("List ALL the S3 buckets, in us-east-1 (a)!")).toEqual(["list", "s3", "buckets", "us", "east"]);
  });

  it("scores 'list all s3 buckets' on aws/s3/buckets-list as the sum of its fields plus the bonus", () => {
    // list: intent_keywords 4 + keywords 2.5 + description 1; s3: every field but providers, 14.5;
    // buckets: intent_keywords 4 + title 3 + keywords 2.5; then the phrase bonus, 6.
    expect(scoreEntry(byId("aws/s3/buckets-list"), "list all s3 buckets")).toBe(7.5 + 14.5 + 9.5 + 6);
  });

  it("adds the phrase bonus when the intent contains an intent keyword, or an intent keyword contains the intent", () => {
    const entry = byId("aws/s3/buckets-list");
    const base = scoreEntry(entry, "zzz");
    expect(base).toBe(0);
    expect(scoreEntry(entry, "please enumerate buckets now") - scoreEntry(entry, "please enumerate now buckets")).toBe(PHRASE_BONUS);
    expect(scoreEntry(entry, "bucket invent")).toBeGreaterThanOrEqual(PHRASE_BONUS);
  });

  it.each(["a", "s", "to", "the a of", "I want to"])("scores the stopword-only or 1-character intent %j as nothing, so no phrase bonus makes it a hit", (intent) => {
    expect(intentTokens(intent)).toEqual([]);
    for (const entry of real) expect(scoreEntry(entry, intent), entry.id).toBe(0);
    expect(rankEntries(real, { intent, include_mutations: true, limit: 20 }, "full_access")).toEqual({ hits: [], miss: true });
  });

  it("keeps the library order for equal scores (stable sort)", () => {
    const twin = { ...byId("aws/s3/buckets-list"), id: "aws/s3/a-twin" };
    const { hits } = rankEntries([byId("aws/s3/buckets-list"), twin], { intent: "list all s3 buckets", limit: 5 }, "safe");
    expect(hits.map((hit) => hit.id)).toEqual(["aws/s3/buckets-list", "aws/s3/a-twin"]);
  });

  it("never shows deprecated entries", () => {
    const deprecated = { ...byId("aws/s3/buckets-list"), status: "deprecated" as const };
    expect(rankEntries([deprecated], { intent: "list all s3 buckets", limit: 5 }, "full_access").hits).toEqual([]);
  });
});

describe("searchQueryLibrary", () => {
  it("ranks the real library's entry first for what users ask", async () => {
    expect(ids(await searchQueryLibrary(env, { intent: "list all s3 buckets" }))[0]).toBe("aws/s3/buckets-list");
    expect(ids(await searchQueryLibrary(env, { intent: "iam users without mfa" }))[0]).toBe("aws/iam/users-console-no-mfa");
    expect(ids(await searchQueryLibrary(env, { intent: "list enabled aws regions" }))[0]).toBe("aws/ec2/regions-enabled");
  });

  it("returns hits with the SPEC fields, and the source", async () => {
    const result = await searchQueryLibrary(env, { intent: "list all s3 buckets", limit: 1 });
    expect(result).toEqual({
      hits: [
        {
          id: "aws/s3/buckets-list",
          title: "S3 buckets cheap enumeration",
          description: "Enumerates S3 bucket names and regions via the list-only resource; identifiers only, no detail.",
          providers: ["aws"],
          services: ["s3"],
          mutation: false,
          required_params: ["region"],
          score: 37.5,
        },
      ],
      miss: false,
      source_tier: "primary",
      source_url: "https://stackql.io/docs/query-library/index.json",
      stale: false,
    });
  });

  it("filters by provider family or provider, service and every tag", async () => {
    const awscc = await searchQueryLibrary(env, { intent: "s3 bucket", provider: "awscc", limit: 20 });
    expect(ids(awscc).sort()).toEqual(["aws/s3/bucket-detail", "aws/s3/public-access-audit"]);
    const family = await searchQueryLibrary(env, { intent: "s3 bucket", provider: "aws", limit: 20 });
    expect(ids(family)).toEqual(expect.arrayContaining(["aws/s3/buckets-list", "aws/s3/bucket-detail"]));
    expect(ids(await searchQueryLibrary(env, { intent: "buckets", service: "storage", limit: 20 }))).toEqual(["google/storage/buckets-by-project"]);
    const tagged = await searchQueryLibrary(env, { intent: "buckets", tags: ["cloudflare", "storage"], limit: 20 });
    expect(ids(tagged)).toEqual(["cloudflare/r2/buckets-list"]);
  });

  it("hides mutation and lifecycle entries unless asked, and always in read_only mode", async () => {
    const intent = "stop a gce instance";
    expect(ids(await searchQueryLibrary(env, { intent }))).not.toContain("google/compute/instance-stop");
    expect(ids(await searchQueryLibrary(env, { intent, include_mutations: true }))[0]).toBe("google/compute/instance-stop");
    const readOnly = { ...env, SERVER_MODE: "read_only" };
    const hidden = await searchQueryLibrary(readOnly, { intent, include_mutations: true, limit: 20 });
    expect(hidden.hits.filter((hit) => hit.mutation)).toEqual([]);
  });

  it("returns 5 hits by default and at most `limit`", async () => {
    expect((await searchQueryLibrary(env, { intent: "list" })).hits).toHaveLength(5);
    expect((await searchQueryLibrary(env, { intent: "list", limit: 20 })).hits.length).toBeGreaterThan(5);
    expect((await searchQueryLibrary(env, { intent: "list", limit: 2 })).hits).toHaveLength(2);
  });

  it("misses with guidance for a stopword-only intent", async () => {
    expect(await searchQueryLibrary(env, { intent: "a" })).toMatchObject({ hits: [], miss: true, guidance: MISS_GUIDANCE });
  });

  it("misses with guidance when nothing scores, or nothing scores 2.5", async () => {
    const nothing = await searchQueryLibrary(env, { intent: "quantum teleportation schedules" });
    expect(nothing).toMatchObject({ hits: [], miss: true, guidance: MISS_GUIDANCE });
    const weak = await searchQueryLibrary(env, { intent: "enumerates" });
    expect(weak.hits.length).toBeGreaterThan(0);
    expect(weak.hits[0]?.score).toBeLessThan(2.5);
    expect(weak.miss).toBe(true);
    expect(weak.guidance).toContain("author the query yourself");
  });

  it("answers from the bundled default library when the D1 index cannot be read", async () => {
    vi.spyOn(env.DB, "prepare").mockImplementation(() => {
      throw new Error("D1_ERROR: network connection lost");
    });
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const result = await searchQueryLibrary(env, { intent: "list dns records in a cloudflare zone" });
    expect(result).toMatchObject({ source_tier: "snapshot", stale: true, miss: false });
    expect(ids(result)[0]).toBe("cloudflare/dns/records-by-type");
  });
});

describe("the query_library_search tool", () => {
  it("renders a table, the source and, on a miss, the guidance", async () => {
    const hit = await queryLibrarySearchTool.run(env, { intent: "list all s3 buckets", limit: 3 });
    expect(hit.text).toMatchInlineSnapshot(`
      "| id | mutation | required_params | score | title |
      | --- | --- | --- | --- | --- |
      | aws/s3/buckets-list | false | region | 37.5 | S3 buckets cheap enumeration |
      | cloudflare/r2/buckets-list | false | account_id | 18.0 | R2 buckets in a Cloudflare account |
      | google/storage/buckets-by-project | false | project | 18.0 | GCS buckets in a project |

      Source: https://stackql.io/docs/query-library/index.json"
    `);
    const miss = await queryLibrarySearchTool.run(env, { intent: "quantum teleportation" });
    expect(miss.text.endsWith(`Source: https://stackql.io/docs/query-library/index.json\n\n${MISS_GUIDANCE}`)).toBe(true);
  });

  it("puts the stale-snapshot notice last, after the source and the guidance (SPEC 3.1 order)", async () => {
    // The tool reads through a D1 session (withSession), so the session is what fails.
    const session = env.DB.withSession();
    vi.spyOn(session, "prepare").mockImplementation(() => {
      throw new Error("D1_ERROR: network connection lost");
    });
    vi.spyOn(env.DB, "withSession").mockReturnValue(session);
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const miss = await queryLibrarySearchTool.run(env, { intent: "quantum teleportation" });
    expect(miss.text).toBe(
      [
        "| id | mutation | required_params | score | title |",
        "| --- | --- | --- | --- | --- |",
        "",
        "Source: https://stackql.io/docs/query-library/index.json",
        "",
        MISS_GUIDANCE,
        "",
        STALE_NOTICE,
      ].join("\n"),
    );
    const hit = await queryLibrarySearchTool.run(env, { intent: "list dns records in a cloudflare zone", limit: 1 });
    expect(hit.text.endsWith(`\n\nSource: https://stackql.io/docs/query-library/index.json\n\n${STALE_NOTICE}`)).toBe(true);
  });

  it("gives the structured result as JSON text with format json", async () => {
    const result = await queryLibrarySearchTool.run(env, { intent: "github issues", format: "json" });
    expect(JSON.parse(result.text)).toEqual(result.structured);
  });

  it("refuses any other format with SPEC's message", async () => {
    await expect(queryLibrarySearchTool.run(env, { intent: "x", format: "yaml" })).rejects.toThrow('invalid format "yaml" (legal: markdown, json)');
  });
});
