// npm run load [-- --url URL] [--seconds N] [--concurrency 1,5,10,20,40] [--key KEY] [--out FILE]
//
// Starts `npm start` on a free port with a fresh state folder (or uses the
// loopback server at --url), then at each concurrency level runs that many
// virtual callers over every door: 2026-07-28 MCP, 2025-era sessions, REST,
// resources and the landing page. Prints per door and in total requests per
// second, p50/p95/p99/max and errors by kind, the server's CPU and memory,
// and whether it still answers afterwards; writes the run into BENCHMARKS.md
// between its load markers.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { cpus, release, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { seededRandom } from "../bench/synthetic-corpus.ts";
import { withEnv } from "../cli/env.ts";
import { runCli } from "../cli/run-cli.ts";
import { createApiKey } from "../src/auth/key-store.ts";
import { replaceMarkedSection } from "../bench/report.ts";
import { startServer, type RunningServer } from "../test/e2e/support/harness.ts";
import { type Caller, type Corpus, closeSession, nextRequest, openSession, readCorpus, warmUp } from "./doors.ts";
import { type OperationCost, measureCosts } from "./cost.ts";
import { type LevelResult, runLevel } from "./level.ts";
import { ServerProcesses, byCommand, machineLoad } from "./processes.ts";
import { type RunSummary, doorTable, markdownReport } from "./report.ts";

const USAGE = `usage:
  npm run load [-- --url http://localhost:8787] [--seconds 20] [--concurrency 1,5,10,20,40] [--key KEY] [--out FILE]

Without --url, starts \`npm start\` on a free port with a fresh state folder and one API key per
caller (limits high enough that the quota never refuses). --url uses a running server on this
machine (loopback only); --key is the API key its callers send (without one they are anonymous,
and answer_query soon gets 429). --seconds: each level's duration (default 20); --concurrency:
the levels, callers at once (default 1,5,10,20,40; e.g. 1,10,40,100); --timeout: seconds before
a request counts as a timeout (default 30); --cost-requests: requests of each operation sent
alone after the levels to measure its CPU cost (default 20; 0 skips); --out: the Markdown file whose load section is
rewritten (default BENCHMARKS.md; "-" for none). Never part of npm test.`;

const BEGIN = "<!-- load:begin (written by npm run load) -->";
const END = "<!-- load:end -->";

/** The most callers at once: beyond this the generator, not the server, is what is measured on a small machine. */
const MAX_CONCURRENCY = 200;
/** A bound on every level whatever its time: no caller sends more than this many requests in it. */
const MAX_REQUESTS_PER_CALLER = 5_000;
/** Limits for the run's own keys: the quota must not be what refuses, and each key is a caller of its own (as real clients are). */
const LOAD_KEY_LIMIT = 1_000_000_000;

function loopbackUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`--url must be a URL such as http://localhost:8787, not "${text}"`);
  }
  if (!["localhost", "127.0.0.1", "[::1]"].includes(url.hostname) || url.protocol !== "http:") {
    throw new Error(`--url must be a server on this machine (http://localhost, 127.0.0.1 or [::1]); a load test sends no traffic elsewhere, got ${url.origin}`);
  }
  return url.origin;
}

function levelsOf(text: string): number[] {
  const levels = text.split(",").map((part) => Number(part.trim()));
  if (levels.length === 0 || levels.some((level) => !Number.isInteger(level) || level < 1 || level > MAX_CONCURRENCY)) {
    throw new Error(`--concurrency takes whole numbers from 1 to ${MAX_CONCURRENCY}, comma-separated, e.g. 1,5,10,20,40 (got "${text}")`);
  }
  return levels;
}

function positive(name: string, text: string, max: number): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0 || value > max) throw new Error(`--${name} must be a number of seconds above 0 and at most ${max}, not "${text}"`);
  return value;
}

/** Makes `count` API keys in the state folder, the way `npm run keys -- create` does, before the server starts. */
async function makeKeys(stateDir: string, count: number): Promise<string[]> {
  return withEnv({ remote: false, persistTo: stateDir }, async (env) => {
    const keys: string[] = [];
    for (let i = 0; i < count; i += 1) {
      keys.push((await createApiKey(env.DB, { label: `load-${i + 1}`, answerPerMinute: LOAD_KEY_LIMIT, answerPerDay: LOAD_KEY_LIMIT })).key);
    }
    return keys;
  });
}

/** The dev server on a fresh state folder (a port taken between choosing and binding it is the harness's to retry). */
function startLoadServer(stateDir: string): Promise<RunningServer> {
  // Anonymous requests (the landing page) share 127.0.0.1's allowance: out of the way too.
  const quota = ["--var", `QUOTA_PUBLIC_ANSWER_PER_MINUTE:${LOAD_KEY_LIMIT}`, "--var", `QUOTA_PUBLIC_ANSWER_PER_DAY:${LOAD_KEY_LIMIT}`];
  return startServer(quota, stateDir);
}

/** The evaluation's questions over the default corpus: what people ask Almanac about itself. */
async function loadQueries(): Promise<string[]> {
  const { questions } = JSON.parse(await readFile("eval/questions/almanac.json", "utf8")) as { questions: { query: string }[] };
  return questions.map((question) => question.query);
}

/** After the load: does /healthz answer, and does a search still find something? */
async function stillAnswers(caller: Caller): Promise<RunSummary["health"]> {
  const started = performance.now();
  let healthz: string;
  let ok = true;
  try {
    const response = await fetch(new URL("/healthz", caller.url), { signal: AbortSignal.timeout(caller.timeoutMs) });
    const body = await response.text();
    healthz = `${response.status} in ${(performance.now() - started).toFixed(0)} ms (${body.slice(0, 60)})`;
    ok &&= response.ok;
  } catch (error) {
    healthz = `failed: ${String(error)}`;
    ok = false;
  }
  await openSession(caller);
  let search = "";
  for (let i = 0; i < 20 && !search; i += 1) {
    // Draw until the mix gives a 2026-07-28 search (the random draw decides the door).
    const outcome = await nextRequest(caller);
    if (outcome.door === "mcp-2026" && outcome.operation === "search_documents") {
      search = outcome.error ? `failed: ${outcome.error}` : `answered in ${outcome.ms.toFixed(0)} ms`;
      ok &&= !outcome.error;
    }
  }
  await closeSession(caller);
  return { healthz, search: search || "not drawn", ok };
}

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      url: { type: "string" },
      key: { type: "string" },
      seconds: { type: "string", default: "20" },
      concurrency: { type: "string", default: "1,5,10,20,40" },
      timeout: { type: "string", default: "30" },
      "cost-requests": { type: "string", default: "20" },
      out: { type: "string", default: "BENCHMARKS.md" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) return console.log(USAGE);
  const levels = levelsOf(values.concurrency);
  const seconds = positive("seconds", values.seconds, 600);
  const timeoutMs = positive("timeout", values.timeout, 120) * 1000;
  const costRequests = Number(values["cost-requests"]);
  if (!Number.isInteger(costRequests) || costRequests < 0 || costRequests > 1000) throw new Error(`--cost-requests must be a whole number from 0 to 1000, not "${values["cost-requests"]}"`);
  if (values.key && !values.url) throw new Error("--key is for a server given with --url; without it the run makes its own keys");
  const log = (line: string) => console.error(`load: # ${line}`);
  const startedAt = new Date();
  const loadBefore = machineLoad();
  const notes: string[] = [];

  let server: RunningServer | undefined;
  let stateDir: string | undefined;
  // Ctrl-C must not leave the dev server behind.
  const stop = async () => {
    await server?.stop();
    if (stateDir) await rm(stateDir, { recursive: true, force: true });
  };
  process.once("SIGINT", () => void stop().then(() => process.exit(130)));

  try {
    let url: string;
    let keys: (string | undefined)[];
    if (values.url) {
      url = loopbackUrl(values.url);
      keys = [values.key];
      notes.push(`Server: ${url}, given with --url; callers ${values.key ? "share the key given with --key" : "are anonymous (no --key): answer_query is refused once the public allowance is spent"}.`);
    } else {
      stateDir = await mkdtemp(join(tmpdir(), "almanac-load-"));
      const callers = Math.max(...levels);
      log(`making ${callers} API keys in ${stateDir}`);
      keys = await makeKeys(stateDir, callers);
      log("starting npm start");
      server = await startLoadServer(stateDir);
      url = server.url;
      notes.push(`Server: \`npm start\` on a fresh state folder (the default corpus), one API key per caller with limits of ${LOAD_KEY_LIMIT.toLocaleString("en")} a minute and a day.`);
    }
    const processes = ServerProcesses.ofPort(Number(new URL(url).port || 80));
    if (!processes) notes.push("The server's processes could not be found from its port: no CPU or memory figures.");
    const corpus: Corpus = await readCorpus(url, keys[0], await loadQueries());
    log(`${url}: ${corpus.names.length} documents listed, ${corpus.queries.length} questions`);

    const warm: Caller = { url, key: keys[0], random: () => 0.5, corpus, timeoutMs };
    await openSession(warm);
    const failed = await warmUp(warm);
    await closeSession(warm);
    if (failed.length > 0) log(`warm-up: ${failed.join("; ")}`);

    const memoryBefore = processes?.sample() ?? [];
    const results: LevelResult[] = [];
    let workerdPeakBytes = byCommand(memoryBefore).get("workerd")?.rssBytes ?? 0;
    for (const concurrency of levels) {
      log(`${concurrency} caller${concurrency === 1 ? "" : "s"} for ${seconds} s (load average ${machineLoad().one.toFixed(2)})`);
      const result = await runLevel(concurrency, { url, keys, corpus, seconds, timeoutMs, maxRequestsPerCaller: MAX_REQUESTS_PER_CALLER, processes });
      results.push(result);
      workerdPeakBytes = Math.max(workerdPeakBytes, byCommand(result.processesAfter).get("workerd")?.rssBytes ?? 0);
      console.error(doorTable([result]).split("\n").slice(2).join("\n"));
      // A pause between levels: sessions closed and the last responses gone before the next level's clock starts.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
    const memoryAfter = processes?.sample() ?? [];
    const health = await stillAnswers({ url, key: keys[0], random: Math.random, corpus, timeoutMs });
    let costs: OperationCost[] = [];
    if (processes && costRequests > 0) {
      log(`each operation alone, ${costRequests} requests each`);
      const alone: Caller = { url, key: keys[0], random: seededRandom(7), corpus, timeoutMs };
      await openSession(alone);
      costs = await measureCosts(alone, processes, costRequests);
      await closeSession(alone);
    }

    const cpu = cpus();
    const summary: RunSummary = {
      command: `npm run load${argv.length ? ` -- ${argv.join(" ")}` : ""}`,
      startedAt,
      machine: `${cpu.length} × ${cpu[0]?.model ?? "unknown CPU"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Linux ${release()}, Node ${process.version}`,
      loadBefore,
      levels: results,
      memoryBefore,
      memoryAfter,
      workerdPeakBytes,
      health,
      costs,
      notes,
    };
    const report = markdownReport(summary);
    console.log(report);
    if (values.out !== "-") await writeSection(values.out, report);
    if (!health.ok) throw new Error("the server no longer answers after the load");
  } finally {
    await stop();
  }
}

/** Rewrites the load section of `file` (appending one when it has none); text outside the markers is kept. */
async function writeSection(file: string, report: string): Promise<void> {
  const section = `${BEGIN}\n\n${report}\n\n${END}`;
  await replaceMarkedSection(file, BEGIN, END, section);
  console.error(`load: # wrote ${file}`);
}

runCli("load", USAGE, main);
