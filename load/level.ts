// One concurrency level: N virtual callers, each with its own key and its
// own 2025-era session, sending the mix back to back until the level's time
// is up, while a prober times /healthz and the machine's CPU is read.
import { seededRandom } from "../bench/synthetic-corpus.ts";
import { type Caller, type Corpus, type ErrorKind, type Outcome, closeSession, nextRequest, openSession } from "./doors.ts";
import { type ProcessSample, type ServerProcesses, machineCpu, machineLoad } from "./processes.ts";

/** Everything measured at one level. */
export interface LevelResult {
  concurrency: number;
  /** From the first request to the last answer, in seconds. */
  seconds: number;
  outcomes: Outcome[];
  /** Opening each caller's 2025-era session (initialize + initialized), before the clock starts. */
  sessionOpens: { ms: number; error: ErrorKind }[];
  /** /healthz round trips during the level, one at a time: the dev server's floor under this load. */
  floor: number[];
  /** `Server-Timing: total` of those /healthz requests: the Worker's own part of the floor. */
  floorWorker: number[];
  /** CPU cores used during the level, on average: by command in the server's group, by this generator, by the whole machine. */
  cores: { server: Map<string, number>; generator: number; machine: number };
  /** The machine's load average when the level ended. */
  load: { one: number; five: number };
  /** The server's processes when the level ended. */
  processesAfter: ProcessSample[];
}

export interface LevelOptions {
  url: string;
  /** One per virtual caller, reused round robin when there are fewer; undefined means anonymous. */
  keys: readonly (string | undefined)[];
  corpus: Corpus;
  seconds: number;
  timeoutMs: number;
  /** The most requests one caller sends in a level, whatever the time: a bound on the count. */
  maxRequestsPerCaller: number;
  processes: ServerProcesses | null;
}

/** CPU seconds by command in the server's group. */
function cpuByCommand(samples: readonly ProcessSample[]): Map<string, number> {
  const totals = new Map<string, number>();
  for (const { command, cpuSeconds } of samples) totals.set(command, (totals.get(command) ?? 0) + cpuSeconds);
  return totals;
}

/** Runs one level and closes its sessions. */
export async function runLevel(concurrency: number, options: LevelOptions): Promise<LevelResult> {
  const callers: Caller[] = Array.from({ length: concurrency }, (_, index) => ({
    url: options.url,
    key: options.keys[index % Math.max(1, options.keys.length)],
    random: seededRandom(concurrency * 1000 + index + 1),
    corpus: options.corpus,
    timeoutMs: options.timeoutMs,
  }));
  const sessionOpens = await Promise.all(callers.map((caller) => openSession(caller)));

  const outcomes: Outcome[] = [];
  const floor: number[] = [];
  const floorWorker: number[] = [];
  const serverBefore = cpuByCommand(options.processes?.sample() ?? []);
  const generatorBefore = process.cpuUsage();
  const machineBefore = machineCpu();
  const started = performance.now();
  const deadline = started + options.seconds * 1000;

  const work = callers.map(async (caller) => {
    for (let sent = 0; sent < options.maxRequestsPerCaller && performance.now() < deadline; sent += 1) outcomes.push(await nextRequest(caller));
  });
  const prober = (async () => {
    while (performance.now() < deadline) {
      const at = performance.now();
      try {
        const response = await fetch(new URL("/healthz", options.url), { signal: AbortSignal.timeout(options.timeoutMs) });
        await response.arrayBuffer();
        floor.push(performance.now() - at);
        const total = /total;dur=([\d.]+)/.exec(response.headers.get("server-timing") ?? "")?.[1];
        if (total) floorWorker.push(Number(total));
      } catch {
        floor.push(Number.NaN);
      }
      // A probe every 250 ms: the floor is sampled, not loaded.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 250 - (performance.now() - at))));
    }
  })();
  await Promise.all([...work, prober]);
  const seconds = (performance.now() - started) / 1000;

  const generator = process.cpuUsage(generatorBefore);
  const machineAfter = machineCpu();
  const processesAfter = options.processes?.sample() ?? [];
  const server = new Map<string, number>();
  for (const [command, after] of cpuByCommand(processesAfter)) server.set(command, (after - (serverBefore.get(command) ?? 0)) / seconds);
  const { one, five } = machineLoad();
  await Promise.all(callers.map((caller) => closeSession(caller)));
  return {
    concurrency,
    seconds,
    outcomes,
    sessionOpens,
    floor,
    floorWorker,
    cores: {
      server,
      generator: (generator.user + generator.system) / 1e6 / seconds,
      machine: (machineAfter.busySeconds - machineBefore.busySeconds) / seconds,
    },
    load: { one, five },
    processesAfter,
  };
}
