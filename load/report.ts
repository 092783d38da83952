// A load run in tables: per door and level, how throughput scales, where the
// machine's CPU went, the server's memory and whether it still answers.
import { percentile } from "../bench/report.ts";
import { DOORS, type Door, type Outcome } from "./doors.ts";
import type { OperationCost } from "./cost.ts";
import type { LevelResult } from "./level.ts";
import { type ProcessSample, byCommand } from "./processes.ts";

/** What a run found around its levels. */
export interface RunSummary {
  command: string;
  startedAt: Date;
  machine: string;
  /** The machine's load average (1 min, 5 min) before the first level. */
  loadBefore: { one: number; five: number };
  levels: LevelResult[];
  memoryBefore: ProcessSample[];
  memoryAfter: ProcessSample[];
  /** The largest workerd RSS seen at the end of any level. */
  workerdPeakBytes: number;
  /** After the last level: /healthz and one search, or why not. */
  health: { healthz: string; search: string; ok: boolean };
  /** Each operation's CPU cost, measured alone after the levels; empty when skipped. */
  costs: OperationCost[];
  notes: string[];
}

const ms = (value: number) => (Number.isFinite(value) ? (value >= 100 ? value.toFixed(0) : value.toFixed(1)) : "—");
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

/** "HTTP 429 × 3, timeout × 1", or "none". */
function errorsOf(outcomes: readonly { error: string | undefined }[]): string {
  const counts = new Map<string, number>();
  for (const { error } of outcomes) if (error) counts.set(error, (counts.get(error) ?? 0) + 1);
  if (counts.size === 0) return "none";
  return [...counts].sort((a, b) => b[1] - a[1]).map(([kind, count]) => `${kind} × ${count}`).join(", ");
}

function row(cells: readonly (string | number)[]): string {
  return `| ${cells.join(" | ")} |`;
}

function latencyCells(outcomes: readonly Outcome[], seconds: number): string[] {
  const times = outcomes.map((o) => o.ms);
  const worker = outcomes.map((o) => o.workerMs ?? Number.NaN);
  return [
    String(outcomes.length),
    (outcomes.length / seconds).toFixed(1),
    ms(percentile(times, 50)),
    ms(percentile(times, 95)),
    ms(percentile(times, 99)),
    ms(Math.max(...times)),
    ms(percentile(worker, 50)),
    ms(percentile(worker, 95)),
    errorsOf(outcomes),
  ];
}

/** Per level, one row per door and one for all of them. */
export function doorTable(levels: readonly LevelResult[]): string {
  const lines = [
    row(["callers", "door", "requests", "req/s", "p50 ms", "p95 ms", "p99 ms", "max ms", "in Worker p50", "in Worker p95", "errors"]),
    row(Array.from({ length: 11 }, (_, i) => (i >= 2 && i <= 9 ? "---:" : "---"))),
  ];
  for (const level of levels) {
    for (const door of DOORS) {
      const outcomes = level.outcomes.filter((o) => o.door === door);
      if (outcomes.length > 0) lines.push(row([level.concurrency, door, ...latencyCells(outcomes, level.seconds)]));
    }
    lines.push(row([level.concurrency, "**all**", ...latencyCells(level.outcomes, level.seconds)]));
  }
  return lines.join("\n");
}

/** Per level: throughput against one caller, the floor, sessions opened, and the CPU by whom. */
export function scalingTable(levels: readonly LevelResult[]): string {
  const base = levels.find((level) => level.concurrency === 1) ?? levels[0];
  const baseRate = base ? base.outcomes.length / base.seconds : Number.NaN;
  const commands = [...new Set(levels.flatMap((level) => [...level.cores.server.keys()]))].filter((command) => levels.some((level) => (level.cores.server.get(command) ?? 0) >= 0.01)).sort();
  const lines = [
    row([
      "callers",
      "req/s",
      "× 1 caller",
      "p50 ms",
      "p99 ms",
      "/healthz p50 (in Worker)",
      "session open p50",
      ...commands.map((command) => `${command} cores`),
      "generator cores",
      "machine busy cores",
      "server CPU ms / request",
      "workerd RSS after",
      "load avg (1 min)",
    ]),
    row(Array.from({ length: 12 + commands.length }, (_, i) => (i === 0 ? "---" : "---:"))),
  ];
  for (const level of levels) {
    const rate = level.outcomes.length / level.seconds;
    const times = level.outcomes.map((o) => o.ms);
    const opens = level.sessionOpens.map((o) => o.ms);
    lines.push(
      row([
        level.concurrency,
        rate.toFixed(1),
        (rate / baseRate).toFixed(2),
        ms(percentile(times, 50)),
        ms(percentile(times, 99)),
        `${ms(percentile(level.floor, 50))} (${ms(percentile(level.floorWorker, 50))})`,
        ms(percentile(opens, 50)) + (level.sessionOpens.some((o) => o.error) ? ` (${errorsOf(level.sessionOpens)})` : ""),
        ...commands.map((command) => (level.cores.server.get(command) ?? 0).toFixed(2)),
        level.cores.generator.toFixed(2),
        level.cores.machine.toFixed(2),
        ms(([...level.cores.server.values()].reduce((sum, cores) => sum + cores, 0) * 1000) / rate),
        mib(byCommand(level.processesAfter).get("workerd")?.rssBytes ?? Number.NaN),
        level.load.one.toFixed(2),
      ]),
    );
  }
  return lines.join("\n");
}

/** Per operation at one level: where a door's time goes. */
export function operationTable(level: LevelResult): string {
  const lines = [row(["door", "operation", "requests", "p50 ms", "p95 ms", "in Worker p50", "in Worker p95", "errors"]), row(["---", "---", "---:", "---:", "---:", "---:", "---:", "---"])];
  const keys = [...new Set(level.outcomes.map((o) => `${o.door}\u0000${o.operation}`))].sort();
  for (const key of keys) {
    const [door, operation] = key.split("\u0000") as [Door, string];
    const outcomes = level.outcomes.filter((o) => o.door === door && o.operation === operation);
    const times = outcomes.map((o) => o.ms);
    const worker = outcomes.map((o) => o.workerMs ?? Number.NaN);
    lines.push(row([door, operation, outcomes.length, ms(percentile(times, 50)), ms(percentile(times, 95)), ms(percentile(worker, 50)), ms(percentile(worker, 95)), errorsOf(outcomes)]));
  }
  return lines.join("\n");
}

/** Each operation alone: its round trip, the Worker's part, and the CPU it costs each server process. */
export function costTable(costs: readonly OperationCost[]): string {
  const commands = [...new Set(costs.flatMap((cost) => [...cost.cpuMsPerRequest.keys()]))].filter((command) => costs.some((cost) => (cost.cpuMsPerRequest.get(command) ?? 0) >= 0.5)).sort();
  const lines = [
    row(["door", "operation", "requests", "round trip p50 ms", "in Worker p50", ...commands.map((command) => `${command} CPU ms / request`), "errors"]),
    row(["---", "---", ...Array.from({ length: 3 + commands.length }, () => "---:"), "---"]),
  ];
  for (const cost of costs) {
    lines.push(
      row([
        cost.door,
        cost.operation,
        cost.requests,
        ms(cost.roundTripP50),
        ms(cost.workerP50),
        ...commands.map((command) => ms(cost.cpuMsPerRequest.get(command) ?? 0)),
        errorsOf(cost.errors.map((error) => ({ error }))),
      ]),
    );
  }
  return lines.join("\n");
}

function memoryLine(label: string, samples: readonly ProcessSample[]): string {
  const commands = byCommand(samples);
  if (commands.size === 0) return `${label}: the server's processes are not visible from here`;
  return `${label}: ${[...commands].map(([command, { rssBytes, count }]) => `${command} ${mib(rssBytes)} (${count} process${count === 1 ? "" : "es"})`).join(", ")}`;
}

/** The whole run as Markdown: what ran, on what, the tables and the memory and health lines. */
export function markdownReport(run: RunSummary): string {
  const last = run.levels[run.levels.length - 1];
  return [
    `Run ${run.startedAt.toISOString().slice(0, 16).replace("T", " ")} UTC with \`${run.command}\` on ${run.machine}; load average ${run.loadBefore.one.toFixed(2)} (1 min), ${run.loadBefore.five.toFixed(2)} (5 min) before the first level.`,
    "",
    ...run.notes.map((note) => `${note}\n`),
    doorTable(run.levels),
    "",
    "Scaling and CPU (cores = CPU seconds per second of the level, 2 cores in all; the server's by executable in its process group, the generator is this Node process):",
    "",
    scalingTable(run.levels),
    "",
    ...(last ? [`By operation at ${last.concurrency} callers:`, "", operationTable(last), ""] : []),
    ...(run.costs.length > 0
      ? [
          `Each operation alone, after the levels (${run.costs[0]?.requests} requests each, one at a time; CPU from /proc, in 10 ms ticks, so small figures are coarse):`,
          "",
          costTable(run.costs),
          "",
        ]
      : []),
    `Server memory (RSS): ${memoryLine("before", run.memoryBefore)}; ${memoryLine("after", run.memoryAfter)}; workerd's largest at the end of a level ${mib(run.workerdPeakBytes)}.`,
    "",
    `Afterwards: ${run.health.ok ? "still answers" : "DOES NOT ANSWER"}: /healthz ${run.health.healthz}; search_documents ${run.health.search}.`,
  ].join("\n");
}
