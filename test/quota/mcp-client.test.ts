// What an MCP client sees of the quota: the SDK's own Client, inside workerd.
import { env } from "cloudflare:test";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { createApiKey } from "../../src/auth/key-store.ts";
import { awayFromMinuteEnd } from "../support/clock.ts";
import { connectClient as connect } from "../support/mcp-connect.ts";

describe("the MCP SDK client and the answer_query quota", () => {
  it("surfaces a 429 with its message, and the session keeps working", async () => {
    await awayFromMinuteEnd();
    const { key } = await createApiKey(env.DB, { label: "sdk-client", answerPerMinute: 1 });
    const client = await connect({ "X-Goog-Api-Key": key });
    try {
      const first = await client.callTool({ name: "answer_query", arguments: { query: "What is Almanac?" } });
      expect(first.isError).toBeFalsy();

      const refused = client.callTool({ name: "answer_query", arguments: { query: "What is Almanac?" } });
      await expect(refused).rejects.toBeInstanceOf(StreamableHTTPError);
      await expect(refused).rejects.toMatchObject({ code: 429 });
      await expect(refused).rejects.toThrow(/may make 1 call per minute and has none left; the per-minute limit resets in \d+ s/);
      await expect(refused).rejects.toThrow(/Use search_documents instead/);

      const search = await client.callTool({ name: "search_documents", arguments: { query: "quota" } });
      expect(search.isError).toBeFalsy();
      expect(search.structuredContent).toHaveProperty("results");
    } finally {
      await client.close();
    }
  });

  it("surfaces a 401 for an unknown key when connecting", async () => {
    await expect(connect({ Authorization: "Bearer alm_unknown" })).rejects.toMatchObject({ code: 401 });
  });
});
