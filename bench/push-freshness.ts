// A measurement, not a test (issue 38): how long from a signed push to the
// new text being searchable, under `npm start`, for a one-page change in a
// source of 500 pages, and what the run read and wrote. A local git
// repository served as a GitHub archive (test/e2e/git-origin.ts) is the
// source's origin; each round commits a change to one page, sends GitHub's
// signed push, and polls search until the new text is found.
//
//   npm exec -- node bench/push-freshness.ts [--pages 500] [--rounds 5]
//
// (through npm, so the dev server's build step finds the project's Node)
import { randomUUID } from "node:crypto";
import { spawnSync } from "node:child_process";
import { parseArgs } from "node:util";
import { newStateDir, startServer } from "../test/e2e/support/harness.ts";
import { githubHeaders, startGitOrigin } from "../test/e2e/support/git-origin.ts";

const { values } = parseArgs({ options: { pages: { type: "string", default: "500" }, rounds: { type: "string", default: "5" } } });
const pages = Number(values.pages);
const rounds = Number(values.rounds);
const HOOK_KEY = `bench-${randomUUID()}-${randomUUID()}`;
const stateDir = newStateDir();

function sources(args: string[]): string {
  const result = spawnSync(process.execPath, ["cli/sources.ts", ...args, "--persist-to", stateDir], { encoding: "utf8", env: { ...process.env, HOOK_KEY } });
  if (result.status !== 0) throw new Error(`sources ${args.join(" ")}: ${result.stdout}${result.stderr}`);
  return result.stdout;
}

interface Status {
  name: string;
  pageCount: number;
  lastRun: { outcome: string; endTime: string | null; added: number; updated: number; pagesRead: number | null; pagesWritten: number | null; pushToPublishedMs: number | null; error: string | null } | null;
}

const origin = await startGitOrigin(pages);
const server = await startServer(["--var", `HOOK_KEY:${HOOK_KEY}`], stateDir);
const status = async () => ((await (await fetch(`${server.url}/sources`)).json()) as { sources: Status[] }).sources[0] as Status;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
try {
  sources(["add", "archive", origin.archiveUrl, "--name", "handbook", "--path", "docs", "--base-uri", "https://handbook.acme.test/docs"]);
  const { secret } = JSON.parse(sources(["hook", "handbook"])) as { secret: string };
  let started = performance.now();
  await fetch(`${server.url}/__scheduled`);
  while ((await status()).lastRun?.outcome !== "succeeded") {
    if ((await status()).lastRun?.outcome === "failed") throw new Error(JSON.stringify(await status()));
    await sleep(200);
  }
  const first = await status();
  console.log(`bench: first run (whole archive, ${first.pageCount} pages) ${((performance.now() - started) / 1000).toFixed(1)} s; read ${first.lastRun?.pagesRead}, wrote ${first.lastRun?.pagesWritten}`);

  for (let round = 1; round <= rounds; round += 1) {
    const word = `Pushword${round}x${randomUUID().slice(0, 6)}`;
    const page = (round * 97) % pages;
    const push = origin.commit({ [`docs/p${page}.md`]: `# Page ${page}\n\n${word} is the new text of page ${page}.\n` });
    const before = (await status()).lastRun?.endTime;
    started = performance.now();
    const response = await fetch(`${server.url}/sources/handbook/hooks/github`, { method: "POST", headers: githubHeaders(secret, push.body, randomUUID()), body: push.body });
    if (response.status !== 202) throw new Error(`push refused: ${response.status} ${await response.text()}`);
    for (;;) {
      const hits = (await (await fetch(`${server.url}/v1/documents:searchDocumentChunks?query=${word}`)).json()) as { results?: unknown[] };
      if ((hits.results ?? []).length > 0) break;
      if (performance.now() - started > 120_000) throw new Error(`round ${round}: not searchable after 120 s: ${JSON.stringify(await status())}`);
      await sleep(100);
    }
    const searchable = performance.now() - started;
    let now = await status();
    while (now.lastRun?.endTime === before || now.lastRun?.outcome === "running") {
      await sleep(100);
      now = await status();
    }
    const run = now.lastRun!;
    console.log(
      `bench: round ${round}: push to searchable ${(searchable / 1000).toFixed(2)} s (measured by polling search); ` +
        `GET /sources pushToPublishedMs ${run.pushToPublishedMs}; read ${run.pagesRead}, wrote ${run.pagesWritten} (updated ${run.updated}) of ${now.pageCount} pages`,
    );
  }
} finally {
  await server.stop();
  await origin.close();
}
