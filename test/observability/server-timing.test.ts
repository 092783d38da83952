// Every response says where its time went (Server-Timing): D1, the tool and
// the whole request. Only the names and shapes are checked, never durations.
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { RequestTimings, collectTimings, serverTimingValue, timed } from "../../src/observability/timings.ts";
import { loadCorpus } from "../support/corpus.ts";
import { post } from "../support/mcp-http.ts";

const MODERN = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientInfo": { name: "timing-test", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

const metrics = (header: string | null) => (header ?? "").split(",").map((entry) => entry.trim().split(";")[0]);

describe("Server-Timing", () => {
  it("reports D1, ranking and shaping, the tool and the total for a 2026-07-28 tool call, which runs in the Worker", async () => {
    await loadCorpus();
    const response = await post(
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "search_documents", arguments: { query: "revoke an API key" }, _meta: META } },
      { "MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": "search_documents" },
    );
    expect(response.status).toBe(200);
    await response.text();
    const header = response.headers.get("server-timing");
    expect(metrics(header)).toEqual(["d1", "shape", "tool", "total"]);
    expect(header).toMatch(/^d1;dur=\d+\.\d{2};desc="D1 queries", shape;dur=\d+\.\d{2};desc="ranking and shaping \(tool minus D1\)"/);
  });

  it("reports D1 and the total on a plain route", async () => {
    const response = await exports.default.fetch(new Request("https://almanac.test/healthz"));
    await response.text();
    expect(metrics(response.headers.get("server-timing"))).toEqual(["d1", "total"]);
  });

  it("reports only the total for a request that does no I/O", async () => {
    const response = await exports.default.fetch(new Request("https://almanac.test/no-such-page"));
    await response.text();
    expect(response.status).toBe(404);
    expect(metrics(response.headers.get("server-timing"))).toEqual(["total"]);
  });

  it("sums marks per metric within a request and ignores marks outside one", async () => {
    await timed("d1", async () => undefined);
    const timings = new RequestTimings();
    await collectTimings(timings, async () => {
      await timed("d1", async () => undefined);
      await timed("d1", async () => undefined);
      await timed("tool", async () => undefined);
    });
    expect(timings.counts.get("d1")).toBe(2);
    expect(timings.counts.get("tool")).toBe(1);
    expect(metrics(serverTimingValue(timings))).toEqual(["d1", "shape", "tool"]);
  });
});
