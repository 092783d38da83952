// Sources refresh themselves (issue 20), end to end: `npm run sources -- add`,
// a scheduled event fired at `npm start`'s /__scheduled, the refresh Workflow
// in wrangler's local engine crawling a real HTTP site on loopback, and the
// pages read back through REST and an MCP client. Then: the site changes, a
// site failing half way, and the dev server stopped in the middle of a run.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newStateDir, startServer, type RunningServer } from "./support/harness.ts";
import { serve } from "./support/readers.ts";

/** The site the test serves, changed as the test goes. */
const site = { word: "alpha", pages: 12, failFrom: Number.POSITIVE_INFINITY, delayMs: 0, changed: new Map<number, string>() };
const requests: { path: string; conditional: boolean; status: number }[] = [];

function page(i: number): string {
  const text = site.changed.get(i) ?? `Srcword${site.word} text of page ${i}, version ${site.word}.`;
  return `<html><head><title>Page ${i}</title></head><body><main><h1>Page ${i}</h1><p>${text}</p></main></body></html>`;
}

function answer(request: IncomingMessage, response: ServerResponse): void {
  const path = new URL(request.url ?? "/", "http://x").pathname;
  const conditional = request.headers["if-none-match"] !== undefined;
  const send = (status: number, body: string, etag?: string) => {
    requests.push({ path, conditional, status });
    response.writeHead(status, { "content-type": status === 200 ? "text/html; charset=utf-8" : "text/plain", ...(etag ? { etag } : {}) });
    response.end(status === 304 ? undefined : body);
  };
  if (path === "/robots.txt") return send(404, "none");
  let body: string;
  if (path === "/docs/") {
    body = `<html><head><title>Index</title></head><body><main><h1>Index</h1><p>The srcindex.</p>${Array.from({ length: site.pages }, (_, i) => `<a href="p${i}.html">P${i}</a>`).join(" ")}</main></body></html>`;
  } else {
    const match = /^\/docs\/p(\d+)\.html$/.exec(path);
    const i = Number(match?.[1] ?? -1);
    if (!match || i >= site.pages) return send(404, "gone");
    if (i >= site.failFrom) return send(500, "down");
    body = page(i);
  }
  const etag = `"${createHash("sha256").update(body).digest("hex").slice(0, 16)}"`;
  setTimeout(() => (request.headers["if-none-match"] === etag ? send(304, "", etag) : send(200, body, etag)), site.delayMs);
}

let server: RunningServer;
let siteUrl = "";
let closeSite: () => Promise<void>;
const stateDir = newStateDir();

function sources(args: string[]): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["cli/sources.ts", ...args, "--persist-to", stateDir], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (data: Buffer) => (output += data.toString()));
    child.stderr.on("data", (data: Buffer) => (output += data.toString()));
    child.on("close", (status) => resolve({ status, output }));
  });
}

interface SourceStatus {
  name: string;
  host: string;
  pageCount: number;
  lastSuccessTime: string | null;
  nextDue: string;
  lastRun: { outcome: string; added: number; updated: number; unchanged: number; removed: number; skipped: number; error: string | null; startTime: string } | null;
}

async function status(): Promise<SourceStatus> {
  const response = await fetch(`${server.url}/sources`);
  expect(response.status).toBe(200);
  const body = (await response.json()) as { sources: SourceStatus[] };
  return body.sources.find((source) => source.name === "demo") as SourceStatus;
}

/** Fires the scheduled event and waits for the run it starts to end. */
async function refresh(): Promise<SourceStatus> {
  const before = (await status()).lastRun?.startTime;
  expect((await fetch(`${server.url}/__scheduled`)).status).toBe(200);
  const deadline = Date.now() + 120_000;
  for (;;) {
    const now = await status();
    if (now.lastRun && now.lastRun.startTime !== before && now.lastRun.outcome !== "running") return now;
    if (Date.now() > deadline) throw new Error(`the run did not end: ${JSON.stringify(now)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function search(query: string): Promise<{ parent: string; content: string }[]> {
  const response = await fetch(`${server.url}/v1/documents:searchDocumentChunks?query=${encodeURIComponent(query)}&pageSize=20`);
  expect(response.status).toBe(200);
  // Google's API leaves an empty list out.
  return ((await response.json()) as { results?: { parent: string; content: string }[] }).results ?? [];
}

/** The versions of the site's pages search finds now, e.g. {"alpha"} — more than one would be a mixed generation. */
async function generationsServed(): Promise<Set<string>> {
  const hits = await search("srcword text of page version");
  return new Set(hits.flatMap((hit) => [.../version (\w+)\./.exec(hit.content)?.slice(1) ?? []]));
}

beforeAll(async () => {
  const started = await serve(answer);
  siteUrl = started.url;
  closeSite = started.close;
  server = await startServer([], stateDir);
  const added = await sources(["add", "site", `${siteUrl}/docs/`, "--name", "demo", "--every", "1h", "--prune"]);
  expect(added.status, added.output).toBe(0);
}, 200_000);

afterAll(async () => {
  await server?.stop();
  await closeSite?.();
});

describe("a source refreshed by the cron and the Workflow", () => {
  it("the first scheduled event reads the site: its pages are searchable and readable through MCP", async () => {
    const run = await refresh();
    expect(run.lastRun).toMatchObject({ outcome: "succeeded", added: site.pages + 1, updated: 0, removed: 0, error: null });
    expect(run.pageCount).toBe(site.pages + 1);
    expect(run.lastSuccessTime).not.toBeNull();
    expect(Date.parse(run.nextDue) - Date.parse(run.lastSuccessTime!)).toBe(3600_000);
    const hits = await search("Srcwordalpha page 4");
    const host = new URL(siteUrl).host;
    expect(hits[0]?.parent).toBe(`documents/${host}/docs/p4.html`);

    const client = new Client({ name: "almanac-e2e-sources", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    const result = (await client.callTool({ name: "get_documents", arguments: { names: [`documents/${host}/docs/p4.html`] } })) as { content: { text: string }[] };
    expect(result.content[0]?.text).toContain("Srcwordalpha text of page 4");
    await client.close();
  });

  it("an unchanged site costs conditional requests and changes nothing", async () => {
    requests.length = 0;
    const run = await refresh();
    expect(run.lastRun).toMatchObject({ outcome: "succeeded", added: 0, updated: 0, removed: 0, unchanged: site.pages + 1 });
    const pages = requests.filter((request) => request.path === "/docs/" || request.path.endsWith(".html"));
    expect(pages.length).toBe(site.pages + 1);
    expect(pages.every((request) => request.conditional && request.status === 304)).toBe(true);
  });

  it("a page changed and one removed: the next scheduled event shows exactly that change", async () => {
    site.changed.set(3, "Quorblewise is the new text of page 3.");
    site.pages -= 1;
    const run = await refresh();
    // Page 3 changed, the index lost its last link, the last page is gone.
    expect(run.lastRun).toMatchObject({ outcome: "succeeded", added: 0, updated: 2, removed: 1, unchanged: site.pages - 1 });
    expect((await search("Quorblewise"))[0]?.parent).toMatch(/\/docs\/p3\.html$/);
    expect((await search(`Srcwordalpha page ${site.pages}`)).some((hit) => hit.parent.endsWith(`/p${site.pages}.html`))).toBe(false);
    const host = new URL(siteUrl).host;
    const document = await fetch(`${server.url}/v1/documents/${host}/docs/p3.html`);
    expect(((await document.json()) as { content: string }).content).toContain("Quorblewise");
  });

  it("a site answering 500s half way: the run fails with the reason, the previous pages stay served, the next run succeeds", async () => {
    site.word = "beta";
    site.changed.clear();
    site.failFrom = Math.floor(site.pages / 2);
    const failed = await refresh();
    expect(failed.lastRun?.outcome).toBe("failed");
    expect(failed.lastRun?.error).toMatch(/the site failed to serve \d+ of the \d+ pages.*HTTP 500.*previous pages are still served/);
    expect(await generationsServed()).toEqual(new Set(["alpha"]));
    expect(await search("Srcwordbeta")).toEqual([]);

    site.failFrom = Number.POSITIVE_INFINITY;
    const recovered = await refresh();
    expect(recovered.lastRun).toMatchObject({ outcome: "succeeded", error: null });
    expect(await generationsServed()).toEqual(new Set(["beta"]));
  });

  it("the dev server stopped in the middle of a run: no mixed generation is ever served, and the source recovers", async () => {
    site.word = "gamma";
    site.delayMs = 1000;
    expect((await fetch(`${server.url}/__scheduled`)).status).toBe(200);
    // Watch what readers see while the run goes on, then stop the server in the middle of it.
    const seen: Set<string>[] = [];
    const until = Date.now() + 1500;
    while (Date.now() < until) seen.push(await generationsServed());
    expect((await status()).lastRun?.outcome).toBe("running");
    await server.stop();
    server = await startServer([], stateDir);
    seen.push(await generationsServed());
    site.delayMs = 0;
    // npm start releases the run the stop cut off (due again at once); the next scheduled event refreshes the source.
    const released = await status();
    expect(released.lastRun).toMatchObject({ outcome: "failed", error: expect.stringMatching(/the dev server stopped during this run/) });
    const deadline = Date.now() + 180_000;
    let now = await status();
    while (now.lastRun?.outcome !== "succeeded" || (await generationsServed()).has("beta")) {
      if (Date.now() > deadline) throw new Error(`the source did not recover: ${JSON.stringify(now)}`);
      seen.push(await generationsServed());
      if (now.lastRun?.outcome !== "running") await refresh();
      else await new Promise((resolve) => setTimeout(resolve, 1000));
      now = await status();
    }
    seen.push(await generationsServed());
    expect(seen.every((versions) => versions.size === 1)).toBe(true);
    expect(await generationsServed()).toEqual(new Set(["gamma"]));
  }, 300_000);
});
