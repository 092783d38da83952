// query_library_get: ids, the teaching view, rendering, next_tool, formats,
// and the snapshot that stands in when a KV read fails.
import { env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { AlmanacError } from "../../src/errors.ts";
import { getQueryLibraryEntry } from "../../src/library/get.ts";
import { DEFAULT_LIBRARY, findStoredEntry, syncLibrary } from "../../src/library/store.ts";
import { ALL_TOOLS, enabledTools } from "../../src/tools/index.ts";
import { queryLibraryGetTool } from "../../src/tools/query-library-get.ts";
import { loadDefaultLibrary, loadStackqlLibrary, preparedStackqlLibrary } from "../support/library-fixtures.ts";

beforeAll(async () => {
  await loadDefaultLibrary();
  await loadStackqlLibrary();
  const detail = preparedStackqlLibrary().entries.find((entry) => entry.id === "aws/s3/bucket-detail");
  if (!detail) throw new Error("fixture missing");
  await syncLibrary(env, "retired", [{ ...detail, id: "aws/s3/old-bucket-detail", title: "Old bucket detail", status: "deprecated" }], { prune: false });
});

afterEach(() => {
  vi.restoreAllMocks();
});

async function failure(promise: Promise<unknown>): Promise<AlmanacError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AlmanacError) return error;
    throw error;
  }
  throw new Error("expected an AlmanacError");
}

describe("ids", () => {
  it.each(["AWS/s3/buckets-list", "aws/s3/buckets-list.md", "/aws/s3", "aws//s3", "aws s3", ""])("refuses the malformed id %j", async (id) => {
    const error = await failure(getQueryLibraryEntry(env, { id }));
    expect(error.status).toBe("INVALID_ARGUMENT");
    expect(error.message).toBe(`invalid query id "${id}"`);
  });

  it("answers an unknown id with NOT_FOUND and the next step", async () => {
    const error = await failure(getQueryLibraryEntry(env, { id: "aws/s3/nothing-here" }));
    expect(error.toText()).toBe('NOT_FOUND: unknown query id "aws/s3/nothing-here"; use query_library_search to find valid ids');
  });

  it("still resolves deprecated entries by id", async () => {
    expect((await getQueryLibraryEntry(env, { id: "aws/s3/old-bucket-detail" })).title).toBe("Old bucket detail");
  });
});

describe("the teaching view", () => {
  it("shows declarations, template and notes without rendering, for absent or empty params", async () => {
    const absent = await getQueryLibraryEntry(env, { id: "aws/s3/buckets-list" });
    expect(await getQueryLibraryEntry(env, { id: "aws/s3/buckets-list", params: {} })).toEqual(absent);
    expect(absent).toEqual({
      id: "aws/s3/buckets-list",
      title: "S3 buckets cheap enumeration",
      description: "Enumerates S3 bucket names and regions via the list-only resource; identifiers only, no detail.",
      mutation: false,
      verb: "select",
      next_tool: "run_select_query",
      params: [{ name: "region", type: "identifier", required: true, description: "Routing region", example: "us-east-1" }],
      template: "SELECT bucket_name, region FROM aws.s3.buckets_list_only WHERE region = '{{region}}';",
      notes:
        "S3 bucket listing is account-global; the region routes the request. Pair with aws/s3/bucket-detail for per-bucket attributes, one request per bucket.",
      rendered: false,
      valid: false,
      missing_params: [],
      unknown_params: [],
      errors: [],
      auth: ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"],
      permissions: ["cloudcontrol:ListResources", "s3:ListAllMyBuckets"],
      cost: { fan_out: "none", expensive: false, notes: "Single account-global list call" },
      outputs: [
        { name: "bucket_name", type: "string", description: "Bucket name" },
        { name: "region", type: "string", description: "Region the bucket lives in" },
      ],
      related: ["aws/s3/bucket-detail"],
      doc_url: "https://stackql.io/docs/query-library/queries/aws/s3/buckets-list",
      source_tier: "primary",
      source_url: "https://stackql.io/docs/query-library/index.json",
      stale: false,
    });
  });

  it("renders the markdown key-value block with the template", async () => {
    const { text } = await queryLibraryGetTool.run(env, { id: "aws/s3/buckets-list" });
    expect(text).toMatchInlineSnapshot(`
      "## Query Library Entry

      doc_url: https://stackql.io/docs/query-library/queries/aws/s3/buckets-list
      id: aws/s3/buckets-list
      mutation: false
      next_tool: run_select_query
      source: primary
      template:
      \`\`\`sql
      SELECT bucket_name, region FROM aws.s3.buckets_list_only WHERE region = '{{region}}';
      \`\`\`
      valid: false"
    `);
  });
});

describe("rendering", () => {
  it("names the tool that runs the SQL, by verb", async () => {
    const mutation = await getQueryLibraryEntry(env, { id: "github/issues/issue-create", params: { owner: "stackql", repo: "stackql", title: "It's broken" } });
    expect(mutation).toMatchObject({ verb: "mutation", mutation: true, next_tool: "run_mutation_query", valid: true });
    expect(mutation.sql).toContain("'It''s broken'");
    const lifecycle = await getQueryLibraryEntry(env, { id: "google/compute/instance-stop", params: { project: "p1", zone: "z1", instance: "web-1" } });
    expect(lifecycle).toMatchObject({ verb: "lifecycle", mutation: true, next_tool: "run_lifecycle_operation", valid: true });
  });

  it("renders mutation entries in read_only mode too: retrieving never executes", async () => {
    const result = await getQueryLibraryEntry({ ...env, SERVER_MODE: "read_only" }, { id: "google/compute/instance-stop", params: { project: "p", zone: "z", instance: "i" } });
    expect(result.valid).toBe(true);
  });

  it("returns SPEC's errors in the result, with no SQL, and lists them in the markdown", async () => {
    const result = await queryLibraryGetTool.run(env, { id: "aws/s3/bucket-detail", params: { region: "us-east-1", bucket: "logs" } });
    expect(result.structured).toMatchObject({
      rendered: true,
      valid: false,
      unknown_params: ["bucket"],
      missing_params: ["bucket_name"],
      errors: ["unknown params rejected: bucket", "missing required params: bucket_name"],
    });
    expect(result.structured).not.toHaveProperty("sql");
    expect(result.structured).not.toHaveProperty("template");
    expect(result.text).toContain("errors: unknown params rejected: bucket; missing required params: bucket_name");
  });

  it("gives the JSON as text with format json, and refuses other formats", async () => {
    const result = await queryLibraryGetTool.run(env, { id: "aws/s3/buckets-list", params: { region: "eu-west-1" }, format: "json" });
    expect(JSON.parse(result.text)).toEqual(result.structured);
    await expect(queryLibraryGetTool.run(env, { id: "aws/s3/buckets-list", format: "MARKDOWN" })).rejects.toThrow(
      'invalid format "MARKDOWN" (legal: markdown, json)',
    );
  });
});

describe("when the live store fails", () => {
  it("answers a default-library entry from the bundled snapshot when the KV read throws", async () => {
    vi.spyOn(env.TEMPLATES, "get").mockRejectedValue(new Error("KV GET failed: 503 Service Unavailable"));
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const result = await getQueryLibraryEntry(env, { id: "cloudflare/dns/records-by-type", params: { zone_id: "37527dd5b6594e3606c526472f80eae5" } });
    expect(result).toMatchObject({ source_tier: "snapshot", stale: true, valid: true });
    expect(result.sql).toContain("type = 'A'");
  });

  it("never answers a user's entry with something else: UNAVAILABLE", async () => {
    vi.spyOn(env.TEMPLATES, "get").mockRejectedValue(new Error("KV GET failed"));
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const error = await failure(getQueryLibraryEntry(env, { id: "aws/s3/buckets-list" }));
    expect(error.status).toBe("UNAVAILABLE");
  });

  it("falls back to the snapshot when the D1 index is down", async () => {
    vi.spyOn(env.DB, "prepare").mockImplementation(() => {
      throw new Error("D1_ERROR");
    });
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    expect((await getQueryLibraryEntry(env, { id: "github/repos/repos-by-org" })).source_tier).toBe("snapshot");
    expect((await failure(getQueryLibraryEntry(env, { id: "aws/s3/buckets-list" }))).status).toBe("UNAVAILABLE");
  });

  it("treats a body missing from KV as a failed read", async () => {
    const stored = await findStoredEntry(env.DB, "github/repos/repos-by-org");
    await env.TEMPLATES.delete(stored?.bodyKey ?? "");
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    expect((await getQueryLibraryEntry(env, { id: "github/repos/repos-by-org" })).stale).toBe(true);
  });
});

describe("registration", () => {
  it("offers both library tools, and ENABLED_TOOLS can leave them out or keep only them", () => {
    expect(ALL_TOOLS.map((tool) => tool.name)).toEqual(expect.arrayContaining(["query_library_search", "query_library_get"]));
    expect(enabledTools("search_documents,get_documents").map((tool) => tool.name)).toEqual(["search_documents", "get_documents"]);
    expect(enabledTools(" query_library_get ").map((tool) => tool.name)).toEqual(["query_library_get"]);
    expect(DEFAULT_LIBRARY).toBe("almanac-default");
  });
});
