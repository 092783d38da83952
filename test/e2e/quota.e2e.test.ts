// API keys and the answer_query quota on the real dev server: keys made with
// `npm run keys`, limits set the way an operator sets them (--var, as .dev.vars
// would), driven over HTTP and with the MCP SDK's own client.
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { awayFromMinuteEnd } from "../support/clock.ts";
import { newStateDir, startServer, type RunningServer } from "./support/harness.ts";

/** `npm run keys -- …` against the server's state folder; returns the last line of its output. */
function keys(args: string[]): { status: number | null; output: string; lastLine: string } {
  const run = spawnSync(process.execPath, ["cli/keys.ts", ...args, "--persist-to", stateDir], { encoding: "utf8", timeout: 120_000 });
  const lines = run.stdout.trim().split("\n");
  return { status: run.status, output: `${run.stdout}${run.stderr}`, lastLine: lines[lines.length - 1] ?? "" };
}

function createKey(args: string[]): string {
  const run = keys(["create", ...args]);
  expect(run.status, run.output).toBe(0);
  expect(run.lastLine).toMatch(/^alm_[A-Za-z0-9_-]{43}$/);
  return run.lastLine;
}

const stateDir = newStateDir();
/** The anonymous limit this server is started with. */
const PUBLIC_PER_MINUTE = 4;
let server: RunningServer | undefined;
let mcpUrl: URL;
let burstKey: string;
let clientKey: string;
let dailyKey: string;
let modernKey: string;

beforeAll(async () => {
  // Keys made before the server starts, as an operator would.
  burstKey = createKey(["--label", "burst", "--answer-per-minute", "5"]);
  clientKey = createKey(["--label", "sdk-client", "--answer-per-minute", "1"]);
  dailyKey = createKey(["--label", "daily", "--answer-per-day", "2"]);
  modernKey = createKey(["--label", "modern-burst", "--answer-per-minute", "5"]);
  server = await startServer(["--var", `QUOTA_PUBLIC_ANSWER_PER_MINUTE:${PUBLIC_PER_MINUTE}`], stateDir);
  mcpUrl = new URL("/mcp", server.url);
});

afterAll(async () => {
  await server?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

const STREAMABLE_HTTP = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };

async function post(body: unknown, headers: Record<string, string>): Promise<Response> {
  return fetch(mcpUrl, { method: "POST", headers: { ...STREAMABLE_HTTP, ...headers }, body: JSON.stringify(body) });
}

async function openSession(headers: Record<string, string>): Promise<Record<string, string>> {
  const response = await post(
    { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "quota-e2e", version: "1" } } },
    headers,
  );
  expect(response.status, await response.clone().text()).toBe(200);
  await response.text();
  const session = { ...headers, "Mcp-Session-Id": response.headers.get("mcp-session-id") ?? "", "MCP-Protocol-Version": "2025-06-18" };
  await (await post({ jsonrpc: "2.0", method: "notifications/initialized" }, session)).text();
  return session;
}

/** The headers a 2026-07-28 client sends with a tools/call. */
function modernHeaders(tool: string): Record<string, string> {
  return { "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": tool };
}

/** An answer_query call in the 2026-07-28 envelope: no session, the client's version and info in `_meta`. */
function modernAnswerQuery(id: string) {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "quota-e2e", version: "1" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  return { jsonrpc: "2.0", id, method: "tools/call", params: { name: "answer_query", arguments: { query: "How is the answer_query quota counted?" }, _meta: meta } };
}

/** `count` concurrent answer_query calls on one session, by HTTP status. */
async function burst(session: Record<string, string>, count: number) {
  const responses = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const response = await post(
        { jsonrpc: "2.0", id: i + 1, method: "tools/call", params: { name: "answer_query", arguments: { query: "How is the answer_query quota counted?" } } },
        session,
      );
      return { status: response.status, headers: response.headers, body: await response.text() };
    }),
  );
  return { admitted: responses.filter((r) => r.status === 200), refused: responses.filter((r) => r.status === 429), all: responses };
}

describe("the answer_query quota on a running server", () => {
  it("admits exactly 5 of 40 concurrent calls for a key limited to 5 per minute", async () => {
    await awayFromMinuteEnd();
    const { admitted, refused, all } = await burst(await openSession({ "X-Goog-Api-Key": burstKey }), 40);
    const retryAfter = refused.map((r) => Number(r.headers.get("Retry-After")));
    console.log(`e2e: 40 concurrent answer_query, key limit 5/min: ${admitted.length} × 200, ${refused.length} × 429, Retry-After ${Math.min(...retryAfter)}–${Math.max(...retryAfter)} s`);
    expect(all).toHaveLength(40);
    expect(admitted).toHaveLength(5);
    expect(refused).toHaveLength(35);
    for (const [i, r] of refused.entries()) {
      expect(retryAfter[i]).toBeGreaterThanOrEqual(1);
      expect(retryAfter[i]).toBeLessThanOrEqual(60);
      expect(r.headers.get("RateLimit-Limit")).toBe("5");
      expect(r.headers.get("RateLimit-Remaining")).toBe("0");
      expect(JSON.parse(r.body)).toMatchObject({ jsonrpc: "2.0", error: { message: expect.stringContaining("Use search_documents instead") } });
    }
    expect(admitted.map((r) => r.body).join("")).toContain("answerText");
  });

  it("counts 2026-07-28 requests, served without a session, against the same exact allowance", async () => {
    await awayFromMinuteEnd();
    const key = { "X-Goog-Api-Key": modernKey };
    // Headers that disagree with the body are refused by the SDK before any tool runs: nothing is charged.
    const mismatch = await post(modernAnswerQuery("mismatch"), { ...key, ...modernHeaders("answer_query"), "Mcp-Name": "search_documents" });
    expect(mismatch.status).toBe(400);
    expect(await mismatch.json()).toMatchObject({ id: "mismatch", error: { code: -32020 } });

    const responses = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const response = await post(modernAnswerQuery(`q-${i}`), { ...key, ...modernHeaders("answer_query") });
        return { status: response.status, body: (await response.json()) as { id: unknown; result?: unknown; error?: { message: string } } };
      }),
    );
    const admitted = responses.filter((r) => r.status === 200);
    const refused = responses.filter((r) => r.status === 429);
    console.log(`e2e: 40 concurrent 2026-07-28 answer_query, key limit 5/min: ${admitted.length} × 200, ${refused.length} × 429`);
    expect(admitted).toHaveLength(5);
    expect(refused).toHaveLength(35);
    for (const [i, r] of responses.entries()) expect(r.body.id).toBe(`q-${i}`);
    expect(refused[0]?.body.error?.message).toContain("Use search_documents instead");
    expect(JSON.stringify(admitted[0]?.body.result)).toContain("answerText");
  });

  it("gives each anonymous IP address the configured public allowance", async () => {
    await awayFromMinuteEnd();
    const [a, b] = await Promise.all([
      openSession({ "CF-Connecting-IP": "203.0.113.70" }).then((session) => burst(session, 20)),
      openSession({ "CF-Connecting-IP": "203.0.113.71" }).then((session) => burst(session, 20)),
    ]);
    expect(a.admitted).toHaveLength(PUBLIC_PER_MINUTE);
    expect(b.admitted).toHaveLength(PUBLIC_PER_MINUTE);
    expect(a.refused[0]?.headers.get("RateLimit-Policy")).toBe(`${PUBLIC_PER_MINUTE};w=60, 20;w=86400`);
  });

  it("surfaces the 429 through the MCP SDK client, whose session keeps working", async () => {
    await awayFromMinuteEnd();
    const client = new Client({ name: "quota-e2e", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${clientKey}` } } }));
    try {
      expect((await client.callTool({ name: "answer_query", arguments: { query: "What is Almanac?" } })).isError).toBeFalsy();
      const refused = client.callTool({ name: "answer_query", arguments: { query: "What is Almanac?" } });
      await expect(refused).rejects.toBeInstanceOf(StreamableHTTPError);
      await expect(refused).rejects.toThrow(/this API key \(\\"sdk-client\\"\) may make 1 call per minute and has none left/);
      const search = await client.callTool({ name: "search_documents", arguments: { query: "answer_query quota" } });
      expect((search.structuredContent as { results: unknown[] }).results.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  it("refuses a key revoked with npm run keys, with 401", async () => {
    const key = createKey(["--label", "to-revoke"]);
    expect((await post({ jsonrpc: "2.0", id: 1, method: "ping" }, { "X-Goog-Api-Key": key })).status).not.toBe(401);
    const run = keys(["revoke", key]);
    expect(run.status, run.output).toBe(0);
    const refused = await post({ jsonrpc: "2.0", id: 1, method: "ping" }, { "X-Goog-Api-Key": key });
    expect(refused.status).toBe(401);
    expect(await refused.text()).toContain("was revoked at");
  });

  it("keeps the counts across a restart of the server", async () => {
    const session = await openSession({ "X-Goog-Api-Key": dailyKey });
    expect((await burst(session, 2)).admitted).toHaveLength(2);
    await server?.stop();
    server = await startServer(["--var", `QUOTA_PUBLIC_ANSWER_PER_MINUTE:${PUBLIC_PER_MINUTE}`], stateDir);
    mcpUrl = new URL("/mcp", server.url);
    const after = await burst(await openSession({ "X-Goog-Api-Key": dailyKey }), 1);
    expect(after.refused).toHaveLength(1);
    expect(after.refused[0]?.body).toContain("may make 2 calls per UTC day and has none left");
  }, 240_000);
});

/** One answer_query call through one of the four doors, as its clients send it. */
type Door = "2026-07-28 MCP" | "2025 session" | "REST answerQuery" | "landing page ask form";

interface DoorResponse {
  door: Door;
  status: number;
  headers: Headers;
  body: string;
}

/** Whether a 200 from a door carries an answer (not an error result that happens to be 200). */
function isAnswer({ door, body }: DoorResponse): boolean {
  if (door === "landing page ask form") return body.includes('<div class="answer">') || body.includes("No grounded answer");
  return body.includes("answerText");
}

/** The minute's end is near: wait for the next minute, so a burst and the count read after it share one. */
async function startOfAMinute(marginMs: number): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < marginMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

describe("one answer_query allowance behind all four doors", () => {
  it("admits exactly N of 3N concurrent calls spread over MCP 2026-07-28, 2025 sessions, REST and the ask form, and counts exactly N", async () => {
    const N = 8;
    const PER_MINUTE = 100;
    const key = createKey(["--label", "four-doors", "--answer-per-day", String(N), "--answer-per-minute", String(PER_MINUTE)]);
    const base = server?.url ?? "";
    const question = "How is the answer_query quota counted?";
    // Two sessions, as two clients of one key would hold.
    const sessions = [await openSession({ "X-Goog-Api-Key": key }), await openSession({ "X-Goog-Api-Key": key })];
    const doors: Door[] = ["2026-07-28 MCP", "2025 session", "REST answerQuery", "landing page ask form"];
    const send = async (door: Door, i: number): Promise<DoorResponse> => {
      let response: Response;
      if (door === "2026-07-28 MCP") {
        response = await post(modernAnswerQuery(`q-${i}`), { "X-Goog-Api-Key": key, ...modernHeaders("answer_query") });
      } else if (door === "2025 session") {
        const session = sessions[i % sessions.length] as Record<string, string>;
        response = await post({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "answer_query", arguments: { query: question } } }, session);
      } else if (door === "REST answerQuery") {
        response = await fetch(`${base}/v1:answerQuery`, { method: "POST", headers: { "X-Goog-Api-Key": key, "Content-Type": "application/json" }, body: JSON.stringify({ query: question }) });
      } else {
        // A form cannot send headers: the page's key field goes in the body.
        response = await fetch(`${base}/try/ask`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ query: question, key }) });
      }
      return { door, status: response.status, headers: response.headers, body: await response.text() };
    };

    await startOfAMinute(15_000);
    const minute = Math.floor(Date.now() / 60_000);
    // 3N calls at once, the doors interleaved: 6 through each.
    const responses = await Promise.all(Array.from({ length: 3 * N }, (_, i) => send(doors[i % doors.length] as Door, i)));
    const admitted = responses.filter((r) => r.status === 200);
    const refused = responses.filter((r) => r.status === 429);
    const byDoor = doors.map((door) => `${door} ${admitted.filter((r) => r.door === door).length}/${responses.filter((r) => r.door === door).length}`);
    console.log(`e2e: ${3 * N} concurrent answer_query over four doors, key limit ${N}/day: ${admitted.length} × 200, ${refused.length} × 429 (admitted by door: ${byDoor.join(", ")})`);

    expect(responses.filter((r) => r.status !== 200 && r.status !== 429).map((r) => `${r.door}: ${r.status} ${r.body.slice(0, 200)}`)).toEqual([]);
    expect(admitted).toHaveLength(N);
    expect(refused).toHaveLength(2 * N);
    for (const r of admitted) expect(isAnswer(r), `${r.door}: ${r.body.slice(0, 300)}`).toBe(true);
    // Each admitted call saw its own count: the remaining allowance after each charge is N-1, N-2, …, 0, each once.
    const remaining = admitted.map((r) => Number(r.headers.get("RateLimit-Remaining"))).sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: N }, (_, i) => i));
    for (const r of refused) {
      expect(r.headers.get("RateLimit-Limit"), r.door).toBe(String(N));
      expect(r.headers.get("RateLimit-Remaining"), r.door).toBe("0");
      expect(r.headers.get("RateLimit-Policy"), r.door).toBe(`${PER_MINUTE};w=60, ${N};w=86400`);
      const retryAfter = Number(r.headers.get("Retry-After"));
      expect(retryAfter, r.door).toBeGreaterThanOrEqual(1);
      expect(retryAfter, r.door).toBeLessThanOrEqual(86_400);
      // Each door says why in its own form; all say the same words.
      expect(r.body, r.door).toContain(`may make ${N} calls per UTC day and has none left`);
    }

    // The count afterwards, as the landing page reads it from the same counter: the day spent, the minute down by exactly N.
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // refunds run after their response: let any land first
    const page = await (await fetch(base, { headers: { "X-Goog-Api-Key": key } })).text();
    const window = (name: string) => {
      const cells = new RegExp(`<tr data-window="${name}">.*?<td class="n">([\\d,]+)</td><td class="n">([\\d,]+)</td>`, "s").exec(page);
      return cells ? { remaining: Number(cells[1]?.replace(/,/g, "")), limit: Number(cells[2]?.replace(/,/g, "")) } : undefined;
    };
    expect(window("day")).toEqual({ remaining: 0, limit: N });
    expect(Math.floor(Date.now() / 60_000), "the burst and the count read must share a minute").toBe(minute);
    expect(window("minute")).toEqual({ remaining: PER_MINUTE - N, limit: PER_MINUTE });
  }, 120_000);
});
