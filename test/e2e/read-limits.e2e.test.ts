// The public tier cannot be drained: an anonymous script firing searches far
// faster than 1,000 a minute at the real dev server gets its allowance, then
// 429s with the answer quota's headers, on REST and /mcp alike (one count per
// address), while a caller with an API key searches on unaffected.
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { awayFromMinuteEnd } from "../support/clock.ts";
import { newStateDir, startServer, type RunningServer } from "./support/harness.ts";

/** The limits wrangler.toml ships, passed again because the harness gives every other test server room. */
const PUBLIC_SEARCHES = 30;
const KEY_SEARCHES = 100;

const stateDir = newStateDir();
let server: RunningServer | undefined;
let key: string;

beforeAll(async () => {
  const run = spawnSync(process.execPath, ["cli/keys.ts", "create", "--label", "read-limits-e2e", "--persist-to", stateDir], { encoding: "utf8", timeout: 120_000 });
  expect(run.status, `${run.stdout}${run.stderr}`).toBe(0);
  key = run.stdout.trim().split("\n").pop() ?? "";
  server = await startServer(
    ["--var", `QUOTA_PUBLIC_SEARCH_PER_MINUTE:${PUBLIC_SEARCHES}`, "--var", `QUOTA_SEARCH_PER_MINUTE:${KEY_SEARCHES}`],
    stateDir,
  );
});

afterAll(async () => {
  await server?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

function search(headers: Record<string, string>, query = "quota"): Promise<Response> {
  return fetch(`${server?.url}/v1/documents:searchDocumentChunks?query=${encodeURIComponent(query)}&pageSize=1`, { headers });
}

/** `count` searches, `parallel` at a time; their responses in the order they were sent. */
async function flood(count: number, parallel: number, headers: Record<string, string>): Promise<Response[]> {
  const responses: Response[] = [];
  for (let start = 0; start < count; start += parallel) {
    const wave = await Promise.all(Array.from({ length: Math.min(parallel, count - start) }, () => search(headers)));
    for (const response of wave) await response.clone().arrayBuffer();
    responses.push(...wave);
  }
  return responses;
}

describe("search limits against npm start", () => {
  it("refuses an anonymous flood past its allowance with 429 and RateLimit-*/Retry-After, while a keyed caller is unaffected", async () => {
    await awayFromMinuteEnd();
    const anonymous = { "CF-Connecting-IP": "203.0.113.80" };
    const started = Date.now();
    const responses = await flood(60, 20, anonymous);
    const perMinute = Math.round((60 / Math.max(1, Date.now() - started)) * 60_000);
    const admitted = responses.filter((response) => response.status === 200);
    const refused = responses.filter((response) => response.status === 429);
    console.log(`60 anonymous searches at about ${perMinute} a minute: ${admitted.length} × 200, ${refused.length} × 429`);
    expect(admitted).toHaveLength(PUBLIC_SEARCHES);
    expect(refused).toHaveLength(60 - PUBLIC_SEARCHES);
    for (const response of refused) {
      const seconds = Number(response.headers.get("Retry-After"));
      expect(seconds).toBeGreaterThanOrEqual(1);
      expect(seconds).toBeLessThanOrEqual(60);
      expect(response.headers.get("RateLimit-Limit")).toBe(String(PUBLIC_SEARCHES));
      expect(response.headers.get("RateLimit-Remaining")).toBe("0");
      expect(response.headers.get("RateLimit-Reset")).toBe(String(seconds));
      expect(response.headers.get("RateLimit-Policy")).toBe(`${PUBLIC_SEARCHES};w=60`);
    }
    const body = (await refused[0]?.json()) as { error: { code: number; status: string; message: string } };
    expect(body.error).toMatchObject({ code: 429, status: "RESOURCE_EXHAUSTED" });
    expect(body.error.message).toContain(`may make ${PUBLIC_SEARCHES} searches per minute`);

    // The same address over /mcp shares the count: search_documents is refused too.
    const mcp = await fetch(`${server?.url}/mcp`, {
      method: "POST",
      headers: { ...anonymous, "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "search_documents", arguments: { query: "quota" } } }),
    });
    expect(mcp.status).toBe(429);
    expect(mcp.headers.get("Retry-After")).toMatch(/^\d+$/);
    expect(await mcp.json()).toMatchObject({ jsonrpc: "2.0", id: 7, error: { data: { status: "RESOURCE_EXHAUSTED", limit: PUBLIC_SEARCHES, remaining: 0 } } });

    // A keyed caller in the same minute: every search answered, with its own allowance in the headers.
    const keyed = await flood(40, 10, { "X-Goog-Api-Key": key });
    expect(keyed.map((response) => response.status)).toEqual(Array.from({ length: 40 }, () => 200));
    expect(keyed.map((response) => Number(response.headers.get("RateLimit-Remaining"))).sort((a, b) => a - b)[0]).toBe(KEY_SEARCHES - 40);
    expect(keyed[0]?.headers.get("RateLimit-Limit")).toBe(String(KEY_SEARCHES));
  });
});
