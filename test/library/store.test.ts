// Writing the library to real D1 and KV: incremental syncs, ownership between
// the default library and user libraries, and runs that fail part way.
import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { D1_BATCH_LIMITS } from "../../src/d1/batches.ts";
import type { LibraryEntry } from "../../src/library/entry.ts";
import { getQueryLibraryEntry } from "../../src/library/get.ts";
import { DEFAULT_LIBRARY, LibraryOwnershipError, listExistingEntries, syncLibrary } from "../../src/library/store.ts";
import { preparedStackqlLibrary } from "../support/library-fixtures.ts";

const real = preparedStackqlLibrary().entries;
const entry = (id: string): LibraryEntry => real.find((candidate) => candidate.id === id) as LibraryEntry;
const bucketsList = entry("aws/s3/buckets-list");
const bucketDetail = entry("aws/s3/bucket-detail");
const zonesList = entry("cloudflare/zones/zones-list");

async function rows() {
  const { results } = await env.DB.prepare("SELECT id, library, update_time FROM library_entries ORDER BY id").all<{ id: string; library: string; update_time: string }>();
  return results;
}

async function kvKeys(): Promise<string[]> {
  return (await env.TEMPLATES.list({ prefix: "library/" })).keys.map((key) => key.name).sort();
}

beforeEach(async () => {
  await env.DB.prepare("DELETE FROM library_entries").run();
  for (const key of await kvKeys()) await env.TEMPLATES.delete(key);
});

describe("syncLibrary", () => {
  it("adds, leaves unchanged entries alone, updates changed ones and prunes only on request", async () => {
    const first = await syncLibrary(env, "team", [bucketsList, bucketDetail], { prune: false, now: new Date("2026-01-01T00:00:00Z") });
    expect(first).toEqual({ added: ["aws/s3/buckets-list", "aws/s3/bucket-detail"], updated: [], unchanged: [], removed: [], kept: [] });

    const changed = { ...bucketDetail, notes: "New notes." };
    const second = await syncLibrary(env, "team", [bucketsList, changed], { prune: false, now: new Date("2026-02-01T00:00:00Z") });
    expect(second).toMatchObject({ updated: ["aws/s3/bucket-detail"], unchanged: ["aws/s3/buckets-list"] });
    expect(await rows()).toEqual([
      { id: "aws/s3/bucket-detail", library: "team", update_time: "2026-02-01T00:00:00.000Z" },
      { id: "aws/s3/buckets-list", library: "team", update_time: "2026-01-01T00:00:00.000Z" },
    ]);
    expect((await getQueryLibraryEntry(env, { id: "aws/s3/bucket-detail" })).notes).toBe("New notes.");
    expect(await kvKeys()).toHaveLength(2); // the old body of bucket-detail is gone

    expect((await syncLibrary(env, "team", [bucketsList], { prune: false })).removed).toEqual([]);
    expect((await syncLibrary(env, "team", [bucketsList], { prune: true })).removed).toEqual(["aws/s3/bucket-detail"]);
    expect((await rows()).map((row) => row.id)).toEqual(["aws/s3/buckets-list"]);
    expect(await kvKeys()).toHaveLength(1);
  });

  it("lets the default library write only the ids it owns, so starting twice changes nothing", async () => {
    await syncLibrary(env, "user", [bucketsList], { prune: false });
    const userRow = await rows();
    const start = await syncLibrary(env, DEFAULT_LIBRARY, [{ ...bucketsList, title: "Default version" }, zonesList], { prune: true });
    expect(start).toMatchObject({ added: ["cloudflare/zones/zones-list"], kept: ["aws/s3/buckets-list"], removed: [] });
    expect((await rows()).filter((row) => row.id === "aws/s3/buckets-list")).toEqual(userRow);
    expect((await getQueryLibraryEntry(env, { id: "aws/s3/buckets-list" })).title).toBe(bucketsList.title);

    const again = await syncLibrary(env, DEFAULT_LIBRARY, [{ ...bucketsList, title: "Default version" }, zonesList], { prune: true });
    expect(again).toEqual({ added: [], updated: [], unchanged: ["cloudflare/zones/zones-list"], removed: [], kept: ["aws/s3/buckets-list"] });
  });

  it("gives an id of the default library to the user who ingests it, and never prunes it back", async () => {
    await syncLibrary(env, DEFAULT_LIBRARY, [zonesList], { prune: true });
    const custom = { ...zonesList, title: "Our zones listing" };
    expect((await syncLibrary(env, "user", [custom], { prune: false })).updated).toEqual(["cloudflare/zones/zones-list"]);
    await syncLibrary(env, DEFAULT_LIBRARY, [], { prune: true });
    expect(await rows()).toMatchObject([{ id: "cloudflare/zones/zones-list", library: "user" }]);
    expect((await getQueryLibraryEntry(env, { id: "cloudflare/zones/zones-list" })).title).toBe("Our zones listing");
  });

  it("refuses ids another user library owns, writing nothing", async () => {
    await syncLibrary(env, "team-a", [bucketsList], { prune: false });
    const before = await rows();
    const keys = await kvKeys();
    await expect(syncLibrary(env, "team-b", [zonesList, bucketsList], { prune: false })).rejects.toThrow(LibraryOwnershipError);
    expect(await rows()).toEqual(before);
    expect(await kvKeys()).toEqual(keys);
  });

  it("keeps serving the previous library when the D1 switch fails", async () => {
    await syncLibrary(env, "team", [bucketsList], { prune: false });
    // A verb the table's CHECK constraint refuses makes the one D1 batch fail as a whole.
    const broken = { ...bucketDetail, verb: "drop" } as unknown as LibraryEntry;
    const changed = { ...bucketsList, title: "Should not be served" };
    await expect(syncLibrary(env, "team", [changed, broken], { prune: false })).rejects.toThrow();
    expect((await listExistingEntries(env.DB)).map((row) => row.id)).toEqual(["aws/s3/buckets-list"]);
    const served = await getQueryLibraryEntry(env, { id: "aws/s3/buckets-list", params: { region: "us-east-1" } });
    expect(served).toMatchObject({ title: bucketsList.title, valid: true, source_tier: "primary" });
  });

  it("writes a library larger than one D1 batch in batches within D1's limits, and serves every entry", async () => {
    const many = Array.from({ length: 2 * D1_BATCH_LIMITS.statements + 7 }, (_, i) => ({ ...bucketsList, id: `aws/s3/buckets-list-${i}`, title: `Buckets listing ${i}` }));
    const batch = vi.spyOn(env.DB, "batch");
    const report = await syncLibrary(env, "team", many, { prune: false });
    expect(report.added).toHaveLength(many.length);
    const sizes = batch.mock.calls.map(([statements]) => statements.length);
    expect(sizes).toEqual([D1_BATCH_LIMITS.statements, D1_BATCH_LIMITS.statements, 7]);
    expect((await listExistingEntries(env.DB)).map((row) => row.id).sort()).toEqual(many.map((e) => e.id).sort());
    for (const { id, title } of many) expect((await getQueryLibraryEntry(env, { id })).title).toBe(title);

    // Pruning all but one is a batch of removals within the limits too.
    batch.mockClear();
    expect((await syncLibrary(env, "team", [many[0] as LibraryEntry], { prune: true })).removed).toHaveLength(many.length - 1);
    for (const [statements] of batch.mock.calls) expect(statements.length).toBeLessThanOrEqual(D1_BATCH_LIMITS.statements);
    expect((await rows()).map((row) => row.id)).toEqual([many[0]?.id]);
    expect(await kvKeys()).toHaveLength(1);
  });
});
