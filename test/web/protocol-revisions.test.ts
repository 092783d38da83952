// The revisions the landing page says /mcp serves are the ones it negotiates.
import { describe, expect, it } from "vitest";
import { SERVED_REVISIONS } from "../../src/web/protocol-revisions.ts";
import { messages, post } from "../support/mcp-http.ts";

// Tests read into JSON-RPC bodies.
type Json = any;

describe("the protocol revisions on the landing page", () => {
  it("are exactly the stateless revisions server/discover announces", async () => {
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name: "landing-test", version: "1" },
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    const response = await post(
      { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: meta } },
      { "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover" },
    );
    const [body] = (await messages(response)) as Json[];
    expect(body.result.supportedVersions).toEqual([...SERVED_REVISIONS.stateless]);
  });

  it.each([...SERVED_REVISIONS.sessions])("include %s, which an initialize gets as its session's revision", async (revision) => {
    const response = await post({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: revision, capabilities: {}, clientInfo: { name: "landing-test", version: "1" } },
    });
    expect(response.status).toBe(200);
    const [body] = (await messages(response)) as Json[];
    expect(body.result.protocolVersion).toBe(revision);
  });
});
