// Sources refreshed by their origin's pushes (issue 38), end to end under
// `npm start`: a local git repository served as a GitHub archive, a source
// reading it (`npm run sources -- add archive`), its webhook secret from
// `npm run sources -- hook`; one page changed and committed, GitHub's signed
// push sent, and the new text is searchable and get_documents shows it. A
// wrong signature, a replay and a push signed for another source change nothing.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newStateDir, startServer, type RunningServer } from "./support/harness.ts";
import { githubHeaders, pageText, startGitOrigin, type GitOrigin } from "./support/git-origin.ts";

const HOOK_KEY = `e2e-${randomUUID()}-${randomUUID()}`;
const BASE = "https://handbook.acme.test/docs";
const PAGES = 30;

let server: RunningServer;
let origin: GitOrigin;
const stateDir = newStateDir();

function sources(args: string[]): Promise<{ status: number | null; stdout: string; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["cli/sources.ts", ...args, "--persist-to", stateDir], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, HOOK_KEY },
    });
    let stdout = "";
    let output = "";
    child.stdout.on("data", (data: Buffer) => ((stdout += data.toString()), (output += data.toString())));
    child.stderr.on("data", (data: Buffer) => (output += data.toString()));
    child.on("close", (status) => resolve({ status, stdout, output }));
  });
}

interface Status {
  name: string;
  pageCount: number;
  hook: { setTime: string } | null;
  lastPush: { time: string; commit: string | null } | null;
  lastRun: { outcome: string; endTime: string | null; added: number; updated: number; removed: number; pagesRead: number | null; pagesWritten: number | null; pushToPublishedMs: number | null } | null;
}

async function status(name = "handbook"): Promise<Status> {
  const body = (await (await fetch(`${server.url}/sources`)).json()) as { sources: Status[] };
  return body.sources.find((source) => source.name === name) as Status;
}

/** Waits until the source's last run is over and is not `before` (its end time). */
async function runAfter(before: string | null | undefined): Promise<Status> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const now = await status();
    if (now.lastRun && now.lastRun.outcome !== "running" && now.lastRun.endTime !== before) return now;
    if (Date.now() > deadline) throw new Error(`the run did not end: ${JSON.stringify(now)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function search(query: string): Promise<{ parent: string; content: string }[]> {
  const response = await fetch(`${server.url}/v1/documents:searchDocumentChunks?query=${encodeURIComponent(query)}&pageSize=20`);
  return ((await response.json()) as { results?: { parent: string; content: string }[] }).results ?? [];
}

const hook = (name: string, headers: Record<string, string>, body: string) => fetch(`${server.url}/sources/${name}/hooks/github`, { method: "POST", headers, body });

let secret = "";
let otherSecret = "";

beforeAll(async () => {
  origin = await startGitOrigin(PAGES);
  server = await startServer(["--var", `HOOK_KEY:${HOOK_KEY}`], stateDir);
  const added = await sources(["add", "archive", origin.archiveUrl, "--name", "handbook", "--path", "docs", "--base-uri", BASE]);
  expect(added.status, added.output).toBe(0);
  const other = await sources(["add", "archive", origin.archiveUrl, "--name", "other", "--path", "docs", "--base-uri", "https://other.acme.test/docs", "--every", "30d"]);
  expect(other.status, other.output).toBe(0);
  const hooked = await sources(["hook", "handbook", "--url", server.url]);
  expect(hooked.status, hooked.output).toBe(0);
  const printed = JSON.parse(hooked.stdout) as { secret: string; hooks: Record<string, string> };
  expect(printed.hooks.github).toBe(`${server.url}/sources/handbook/hooks/github`);
  secret = printed.secret;
  otherSecret = (JSON.parse((await sources(["hook", "other"])).stdout) as { secret: string }).secret;
  // The first run reads the whole repository.
  expect((await fetch(`${server.url}/__scheduled`)).status).toBe(200);
  const deadline = Date.now() + 120_000;
  while ((await status()).lastRun?.outcome !== "succeeded" || (await status("other")).lastRun?.outcome !== "succeeded") {
    if (Date.now() > deadline) throw new Error(`the first runs did not end: ${JSON.stringify(await status())}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}, 300_000);

afterAll(async () => {
  await server?.stop();
  await origin?.close();
});

describe("a source refreshed by a signed push", () => {
  it("one page changed and pushed: its new text is searchable and get_documents shows it; the run read and wrote that page only", async () => {
    const first = await status();
    expect(first.lastRun).toMatchObject({ outcome: "succeeded", added: PAGES, pagesRead: PAGES, pagesWritten: PAGES, pushToPublishedMs: null });
    const push = origin.commit({ "docs/p7.md": `# Page 7\n\nFlumbergast is what page 7 says now.\n` });
    const downloads = origin.downloads;
    const response = await hook("handbook", githubHeaders(secret, push.body, randomUUID()), push.body);
    expect(response.status).toBe(202);
    expect(await response.json()).toMatchObject({ source: "handbook", commit: push.commit, changes: "1 paths", run: "started" });
    const run = await runAfter(first.lastRun?.endTime);
    expect(run.lastRun).toMatchObject({ outcome: "succeeded", added: 0, updated: 1, removed: 0, pagesRead: 1, pagesWritten: 1 });
    expect(run.lastRun?.pushToPublishedMs).toBeGreaterThan(0);
    expect(run.lastPush?.commit).toBe(push.commit);
    expect(origin.downloads).toBe(downloads + 1);

    expect((await search("Flumbergast"))[0]?.parent).toBe("documents/handbook.acme.test/docs/p7");
    const client = new Client({ name: "almanac-e2e-hooks", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    const result = (await client.callTool({ name: "get_documents", arguments: { names: ["documents/handbook.acme.test/docs/p7"] } })) as { content: { text: string }[] };
    expect(result.content[0]?.text).toContain("Flumbergast is what page 7 says now.");
    await client.close();
  });

  it("a page deleted in a push is gone at once; the others stay", async () => {
    const before = await status();
    const push = origin.commit({ "docs/p9.md": null });
    expect((await hook("handbook", githubHeaders(secret, push.body, randomUUID()), push.body)).status).toBe(202);
    const run = await runAfter(before.lastRun?.endTime);
    expect(run.lastRun).toMatchObject({ outcome: "succeeded", removed: 1, pagesRead: 0, pagesWritten: 1 });
    expect(run.pageCount).toBe(PAGES - 1);
    expect((await search("Gitwordalpha page 9")).some((hit) => hit.parent === "documents/handbook.acme.test/docs/p9")).toBe(false);
  });

  it("a wrong signature, a replay and a push signed for another source change nothing, and say why", async () => {
    const push = origin.commit({ "docs/p11.md": pageText(11, "snorkelvine") });
    const delivery = randomUUID();
    const wrong = await hook("handbook", { ...githubHeaders(secret, push.body, randomUUID()), "x-hub-signature-256": `sha256=${"0".repeat(64)}` }, push.body);
    const foreign = await hook("handbook", githubHeaders(otherSecret, push.body, randomUUID()), push.body);
    const before = await status();
    expect(before.lastPush?.commit).not.toBe(push.commit);
    const accepted = await hook("handbook", githubHeaders(secret, push.body, delivery), push.body);
    expect(accepted.status).toBe(202);
    const run = await runAfter(before.lastRun?.endTime);
    const replay = await hook("handbook", githubHeaders(secret, push.body, delivery), push.body);

    expect([wrong.status, foreign.status, replay.status]).toEqual([401, 401, 409]);
    expect(((await wrong.json()) as { error: { message: string } }).error.message).toMatch(/X-Hub-Signature-256 does not match/);
    expect(((await foreign.json()) as { error: { message: string } }).error.message).toMatch(/a push for another source, an old secret/);
    expect(((await replay.json()) as { error: { message: string } }).error.message).toMatch(/was accepted before: a replay changes nothing/);
    // Only the accepted push ran; the refused ones recorded no push and started no run.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await status()).toMatchObject({ lastPush: { commit: push.commit }, lastRun: { endTime: run.lastRun?.endTime, updated: 1 } });
    expect((await search("Gitwordsnorkelvine"))[0]?.parent).toBe("documents/handbook.acme.test/docs/p11");
    // The other source was not touched by a push meant for it but sent to handbook.
    expect((await status("other")).lastPush).toBeNull();
  });
});
