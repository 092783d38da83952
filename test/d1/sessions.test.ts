// Reads go through D1's Sessions API, so a deployment with read replication
// serves them from the nearest replica; one run of reads starts where the
// previous one ended (the bookmark), so a session never sees the corpus go back.
import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ReadConsistency, readOnce } from "../../src/d1/sessions.ts";
import { countDocuments } from "../../src/documents/read/stored-documents.ts";
import { searchDocumentsTool } from "../../src/tools/search-documents.ts";
import { loadCorpus } from "../support/corpus.ts";

afterEach(() => vi.restoreAllMocks());

describe("reads through D1 sessions", () => {
  it("starts an unconstrained session (the nearest replica) and keeps its bookmark for the next run", async () => {
    const withSession = vi.spyOn(env.DB, "withSession");
    const reads = new ReadConsistency();
    expect(reads.bookmark).toBeUndefined();
    await reads.read(env.DB, countDocuments);
    expect(withSession).toHaveBeenLastCalledWith("first-unconstrained");
    const bookmark = reads.bookmark;
    expect(typeof bookmark).toBe("string");
    await reads.read(env.DB, countDocuments);
    expect(withSession).toHaveBeenLastCalledWith(bookmark);
  });

  it("carries a bookmark given from elsewhere (a session that wrote, or a client's)", async () => {
    const withSession = vi.spyOn(env.DB, "withSession");
    const earlier = env.DB.withSession("first-primary");
    await earlier.prepare("SELECT 1").first();
    const bookmark = earlier.getBookmark() ?? "";
    await new ReadConsistency(bookmark).read(env.DB, countDocuments);
    expect(withSession).toHaveBeenLastCalledWith(bookmark);
  });

  it("serves /healthz and the tools from a session, never from the database directly", async () => {
    await loadCorpus();
    const withSession = vi.spyOn(env.DB, "withSession");
    const prepare = vi.spyOn(env.DB, "prepare");
    expect(await readOnce(env.DB, countDocuments)).toBeGreaterThan(0);
    const result = await searchDocumentsTool.run(env, { query: "revoke an API key" });
    expect(result.structured.results.length).toBeGreaterThan(0);
    expect(withSession).toHaveBeenCalledTimes(2);
    expect(prepare).not.toHaveBeenCalled();
  });

  it("lets a transport keep one read context across calls (a 2025-era MCP session)", async () => {
    await loadCorpus();
    const reads = new ReadConsistency();
    const withSession = vi.spyOn(env.DB, "withSession");
    await searchDocumentsTool.run(env, { query: "revoke an API key" }, { reads });
    const bookmark = reads.bookmark;
    await searchDocumentsTool.run(env, { query: "quota" }, { reads });
    expect(withSession).toHaveBeenNthCalledWith(2, bookmark);
  });
});
