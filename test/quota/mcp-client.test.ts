// What an MCP client sees of the quota: the SDK's own Client, inside workerd.
import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { describe, expect, it } from "vitest";
import { createApiKey } from "../../src/auth/key-store.ts";
import { awayFromMinuteEnd } from "./clock.ts";
import { MCP_URL } from "./mcp-http.ts";

async function connect(headers: Record<string, string>): Promise<Client> {
  // The default validator compiles schemas with `new Function`, which workerd forbids.
  const client = new Client({ name: "quota-client-test", version: "1.0.0" }, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
    requestInit: { headers },
    fetch: (url, init) => exports.default.fetch(new Request(url, init)),
  });
  await client.connect(transport);
  return client;
}

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
