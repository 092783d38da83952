// Webhooks of a source (issue 38) inside workerd, against real D1 and the
// local Workflows engine: a signed push starts the source's refresh at once
// and only the pushed pages are read; every refused request (bad signature,
// replay, another source's secret, stale, oversized, malformed) changes
// nothing. The archive is served by a fetch mock answering real Responses.
import { createExecutionContext, env, introspectWorkflow } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { app } from "../../src/index.ts";
import { refreshDueSources } from "../../src/sources/cron.ts";
import { deriveHookSecret, hmacSha256, setHookSalt } from "../../src/sources/hook-secrets.ts";
import { startPendingRun } from "../../src/sources/pushes.ts";
import { addSource, finishRun, getSource } from "../../src/sources/sources.ts";
import { searchDocuments } from "../../src/documents/search/search-documents.ts";
import { archiveBytes, tarBlocks } from "../support/tar-writer.ts";

const ARCHIVE = "https://git.test/acme/handbook/archive/refs/heads/main.tar.gz";
const BASE = "https://docs.acme.test/handbook";
const HOOK_KEY = "a-test-hook-key-of-at-least-32-characters";
const PAGES = 40;

/** The repository: path → text; the archive served is made from it at each download. */
const repository = new Map<string, string>();
let downloads = 0;

function serveRepository() {
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url !== ARCHIVE) throw new TypeError(`fetch failed: ${url} is not the test archive`);
    downloads += 1;
    const entries = [...repository].map(([path, body]) => ({ path: `handbook-c0ffee/${path}`, body }));
    return new Response(await archiveBytes(tarBlocks(entries)), { headers: { "content-type": "application/gzip" } });
  });
}

const withKey = { ...env, HOOK_KEY } as Env;
const hex = (bytes: Uint8Array) => [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");

async function githubPush(name: string, secret: string, body: object, delivery = crypto.randomUUID(), vars: Env = withKey): Promise<Response> {
  const text = JSON.stringify(body);
  const signature = `sha256=${hex(await hmacSha256(new TextEncoder().encode(secret), new TextEncoder().encode(text)))}`;
  const request = new Request(`https://almanac.test/sources/${name}/hooks/github`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-github-event": "push", "x-github-delivery": delivery, "x-hub-signature-256": signature },
    body: text,
  });
  return app.fetch(request, vars, createExecutionContext());
}

async function signedPush(name: string, secret: string, body: string, stamp = Math.floor(Date.now() / 1000)): Promise<Response> {
  const signature = `sha256=${hex(await hmacSha256(new TextEncoder().encode(secret), new TextEncoder().encode(`${stamp}.${body}`)))}`;
  const request = new Request(`https://almanac.test/sources/${name}/hooks/signed`, {
    method: "POST",
    headers: { "x-almanac-timestamp": String(stamp), "x-almanac-signature": signature },
    body,
  });
  return app.fetch(request, withKey, createExecutionContext());
}

/** A push whose body streams `offered` bytes with no Content-Length, so only counting as it arrives can refuse it; `pulled` is what was read of it. */
function streamedPush(name: string, offered: number): { response: Promise<Response>; pulled: () => number } {
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= offered) return controller.close();
      pulled += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  const request = new Request(`https://almanac.test/sources/${name}/hooks/signed`, {
    method: "POST",
    headers: { "x-almanac-timestamp": String(Math.floor(Date.now() / 1000)), "x-almanac-signature": "sha256=00" },
    body,
  });
  return { response: Promise.resolve(app.fetch(request, withKey, createExecutionContext())), pulled: () => pulled };
}

const push = (modified: string[], removed: string[] = []) => ({ ref: "refs/heads/main", after: "c0ffee2", commits: [{ added: [], modified, removed }] });
const pending = async () => (await env.DB.prepare("SELECT count(*) AS n FROM source_pushes").first<number>("n")) ?? 0;

/** Runs `work` and waits for every instance it starts to end as `status`. */
async function instancesOf(work: () => Promise<unknown>, status: "complete" | "errored" = "complete"): Promise<number> {
  const introspector = await introspectWorkflow(env.SOURCE_REFRESH);
  try {
    await introspector.modifyAll(async (m) => {
      await m.disableRetryDelays();
    });
    await work();
    const instances = await introspector.get();
    for (const instance of instances) await instance.waitForStatus(status);
    return instances.length;
  } finally {
    await introspector.dispose();
  }
}

let secret = "";

beforeEach(async () => {
  await env.DB.batch([
    env.DB.prepare("DELETE FROM sources"),
    env.DB.prepare("DELETE FROM source_pushes"),
    env.DB.prepare("DELETE FROM hook_deliveries"),
    env.DB.prepare("DELETE FROM generations"),
    env.DB.prepare("DELETE FROM chunks WHERE document_name LIKE 'documents/docs.acme.test/%'"),
    env.DB.prepare("DELETE FROM documents WHERE base_uri = ?1").bind(BASE),
  ]);
  repository.clear();
  for (let i = 0; i < PAGES; i += 1) repository.set(`docs/p${i}.md`, `# Page ${i}\n\nHookwordalpha text of page ${i}.\n`);
  repository.set("src/main.c", "int main() {}");
  serveRepository();
  await addSource(env.DB, { name: "handbook", kind: "archive", url: ARCHIVE, options: { path: "docs", "base-uri": BASE }, every: 86_400 }, Date.now());
  await setHookSalt(env.DB, "handbook", "salt-one", Date.now());
  secret = await deriveHookSecret(HOOK_KEY, "handbook", "salt-one");
  expect(await instancesOf(() => refreshDueSources(env.DB, env.SOURCE_REFRESH, Date.now()))).toBe(1);
  expect(await getSource(env.DB, "handbook")).toMatchObject({ lastRun: { outcome: "succeeded", added: PAGES }, lastRunPages: { read: PAGES, written: PAGES } });
  downloads = 0;
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a source's webhook", () => {
  it("a signed GitHub push starts the run now, which reads and writes only the pushed pages, in one publication", async () => {
    repository.set("docs/p3.md", "# Page 3\n\nQuillwort is the new text of page 3.\n");
    repository.delete("docs/p5.md");
    let response: Response | undefined;
    expect(await instancesOf(async () => (response = await githubPush("handbook", secret, push(["docs/p3.md", "src/main.c"], ["docs/p5.md"]))))).toBe(1);
    expect(response?.status).toBe(202);
    expect(await response?.json()).toMatchObject({ source: "handbook", commit: "c0ffee2", changes: "3 paths", run: "started" });
    expect(downloads).toBe(1);
    const source = await getSource(env.DB, "handbook");
    expect(source).toMatchObject({
      runId: null,
      lastRun: { outcome: "succeeded", added: 0, updated: 1, unchanged: 0, removed: 1 },
      lastRunPages: { read: 1, written: 2 },
      lastPush: { commit: "c0ffee2" },
    });
    expect(source!.lastRunPages.pushToPublishedMs).toBeGreaterThanOrEqual(0);
    expect((await searchDocuments(env.DB, { query: "Quillwort" })).results[0]?.parent).toBe("documents/docs.acme.test/handbook/p3");
    expect(await env.DB.prepare("SELECT count(*) AS n FROM documents WHERE base_uri = ?1").bind(BASE).first("n")).toBe(PAGES - 1);
    // GET /sources says so, and shows no secret.
    const status = await (await app.fetch(new Request("https://almanac.test/sources"), withKey, createExecutionContext())).text();
    expect(JSON.parse(status).sources[0]).toMatchObject({ hook: { setTime: expect.any(String) }, lastPush: { commit: "c0ffee2" }, lastRun: { pagesRead: 1, pagesWritten: 2 } });
    expect(status).not.toContain(secret);
    expect(status).not.toContain("salt-one");
  });

  it("a GitLab push with the source's token, and a signed push naming paths, each start a run reading only their pages", async () => {
    repository.set("docs/p4.md", "# Page 4\n\nGitlabword on page 4.\n");
    const gitlab = (token: string, event = "Push Hook") =>
      app.fetch(
        new Request("https://almanac.test/sources/handbook/hooks/gitlab", {
          method: "POST",
          headers: { "x-gitlab-token": token, "x-gitlab-event": event, "x-gitlab-event-uuid": crypto.randomUUID() },
          body: JSON.stringify({ object_kind: "push", ref: "refs/heads/main", after: "beef01", total_commits_count: 1, commits: [{ added: [], modified: ["docs/p4.md"], removed: [] }] }),
        }),
        withKey,
        createExecutionContext(),
      );
    let wrong: Response | undefined;
    let tag: Response | undefined;
    expect(await instancesOf(async () => {
      wrong = await gitlab("not-the-secret");
      tag = await gitlab(secret, "Tag Push Hook");
      expect((await gitlab(secret)).status).toBe(202);
    })).toBe(1);
    expect(wrong?.status).toBe(401);
    expect(await tag?.json()).toEqual({ source: "handbook", ignored: 'a GitLab "Tag Push Hook" event is not a push; nothing to do' });
    expect(await getSource(env.DB, "handbook")).toMatchObject({ lastPush: { commit: "beef01" }, lastRunPages: { read: 1, written: 1 } });

    repository.set("docs/p6.md", "# Page 6\n\nSignedword on page 6.\n");
    expect(await instancesOf(async () => expect((await signedPush("handbook", secret, JSON.stringify({ commit: "abc", paths: ["docs/p6.md"] }))).status).toBe(202))).toBe(1);
    expect(await getSource(env.DB, "handbook")).toMatchObject({ lastPush: { commit: "abc" }, lastRun: { updated: 1 }, lastRunPages: { read: 1, written: 1 } });
    expect((await searchDocuments(env.DB, { query: "Signedword" })).results[0]?.parent).toBe("documents/docs.acme.test/handbook/p6");
    // A signed push naming nothing asks for a whole run: every page read, none written.
    expect(await instancesOf(async () => expect((await signedPush("handbook", secret, "{}")).status).toBe(202))).toBe(1);
    expect(await getSource(env.DB, "handbook")).toMatchObject({ lastRun: { updated: 0, unchanged: PAGES }, lastRunPages: { read: PAGES, written: 0 } });
  });

  it("ignores a push to another branch than the archive's, starting nothing", async () => {
    const response = await githubPush("handbook", secret, { ...push(["docs/p1.md"]), ref: "refs/heads/feature" });
    expect(await response.json()).toEqual({ source: "handbook", ignored: "a push to branch feature; this source reads main" });
    expect(await pending()).toBe(0);
  });

  it("refuses a wrong signature, a replay, another source's secret, a stale or malformed signed push, and a body too large, changing nothing", async () => {
    const other = await deriveHookSecret(HOOK_KEY, "other", "salt-one");
    const refusals: [string, Response][] = [];
    let streamed: ReturnType<typeof streamedPush> | undefined;
    const started = await instancesOf(async () => {
      refusals.push(["wrong signature", await githubPush("handbook", "not-the-secret", push(["docs/p1.md"]))]);
      refusals.push(["another source's secret", await githubPush("handbook", other, push(["docs/p1.md"]))]);
      refusals.push(["stale", await signedPush("handbook", secret, '{"paths":["docs/p1.md"]}', Math.floor(Date.now() / 1000) - 3600)]);
      refusals.push(["malformed", await signedPush("handbook", secret, "{not json")]);
      refusals.push(["too large", await signedPush("handbook", secret, JSON.stringify({ paths: ["x".repeat(1024 * 1024)] }))]);
      streamed = streamedPush("handbook", 16 * 1024 * 1024);
      refusals.push(["too large, no Content-Length", await streamed.response]);
      refusals.push(["no HOOK_KEY", await githubPush("handbook", secret, push(["docs/p1.md"]), undefined, env)]);
      refusals.push(["unknown source", await githubPush("nosuch", secret, push(["docs/p1.md"]))]);
    });
    expect(started).toBe(0);
    const answers = await Promise.all(refusals.map(async ([what, response]) => [what, response.status, ((await response.json()) as { error: { message: string } }).error.message]));
    expect(answers).toEqual([
      ["wrong signature", 401, expect.stringMatching(/X-Hub-Signature-256 does not match/)],
      ["another source's secret", 401, expect.stringMatching(/does not match the body under this source's secret/)],
      ["stale", 401, expect.stringMatching(/more than 300 s from the server's clock: a replayed or delayed request is refused/)],
      ["malformed", 400, "the body is not JSON"],
      ["too large", 413, expect.stringMatching(/at most 1048576 bytes/)],
      ["too large, no Content-Length", 413, "a push body is at most 1048576 bytes; this one is longer"],
      ["no HOOK_KEY", 503, expect.stringMatching(/webhooks are off on this server \(HOOK_KEY is not set\)/)],
      ["unknown source", 404, expect.stringMatching(/no source named "nosuch"/)],
    ]);
    expect(await pending()).toBe(0);
    // Refused as it arrived: the rest of the 16 MiB was never read.
    expect(streamed?.pulled()).toBeLessThan(2 * 1024 * 1024);
    expect(await getSource(env.DB, "handbook")).toMatchObject({ lastPush: null, lastRun: { added: PAGES } });

    // A replay: the same delivery again is refused, and only the first started a run.
    const delivery = crypto.randomUUID();
    let replay: Response | undefined;
    expect(await instancesOf(async () => {
      expect((await githubPush("handbook", secret, push(["docs/p1.md"]), delivery)).status).toBe(202);
      replay = await githubPush("handbook", secret, push(["docs/p1.md"]), delivery);
    })).toBe(1);
    expect(replay?.status).toBe(409);
    expect(await pending()).toBe(1);

    // A new secret: the old one stops verifying.
    await setHookSalt(env.DB, "handbook", "salt-two", Date.now());
    expect((await githubPush("handbook", secret, push(["docs/p1.md"]))).status).toBe(401);
  });

  it("a burst of pushes while a run is going is one run, started when that run ends, reading what they all changed", async () => {
    await env.DB.prepare("UPDATE sources SET run_id = 'run-going', outcome = 'running' WHERE name = 'handbook'").run();
    repository.set("docs/p1.md", "# Page 1\n\nBurstwordone on page 1.\n");
    repository.set("docs/p2.md", "# Page 2\n\nBurstwordtwo on page 2.\n");
    const first = await githubPush("handbook", secret, push(["docs/p1.md"]));
    const second = await githubPush("handbook", secret, push(["docs/p2.md"]));
    expect([first.status, second.status]).toEqual([202, 202]);
    expect(await second.json()).toMatchObject({ run: "queued", runningId: "run-going" });
    // The run going ends (recorded as the Workflow's last step records it) and starts the next.
    const started = await instancesOf(async () => {
      await finishRun(env.DB, "handbook", "run-going", { outcome: "succeeded", counts: { added: 0, updated: 0, unchanged: 0, removed: 0, skipped: 0 } }, Date.now());
      expect(await startPendingRun(env.DB, env.SOURCE_REFRESH, "handbook", Date.now())).toMatch(/^run-/);
    });
    expect(started).toBe(1);
    expect(await getSource(env.DB, "handbook")).toMatchObject({ lastRun: { outcome: "succeeded", updated: 2 }, lastRunPages: { read: 2, written: 2 } });
    expect((await searchDocuments(env.DB, { query: "Burstwordtwo" })).results[0]?.parent).toBe("documents/docs.acme.test/handbook/p2");
  });
});
