/**
 * Where a request's time goes, collected without knowing the transport: code
 * anywhere below a request marks what it waits for (`timed("d1", …)`), and
 * whoever serves the request reads the sums (the Server-Timing middleware).
 * AsyncLocalStorage carries the collector through every await, so no
 * function signature has to pass it along.
 *
 * In workerd the clock advances only while a request waits for I/O (a
 * Spectre mitigation, locally as on the edge), so a mark measures its I/O
 * exactly and pure computation between I/O as zero.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** What is measured: D1 round trips, embedding the query, the vector index, a tool's handler, and the whole request. */
type TimingMetric = "d1" | "embed" | "vector" | "tool" | "total";

/** The durations of one request, summed per metric, in milliseconds. */
export class RequestTimings {
  readonly durations = new Map<TimingMetric, number>();
  readonly counts = new Map<TimingMetric, number>();
  /** Events without a duration, e.g. `fallback` when hybrid retrieval fell back to lexical, with why. */
  readonly notes = new Map<string, string>();

  add(metric: TimingMetric, milliseconds: number): void {
    this.durations.set(metric, (this.durations.get(metric) ?? 0) + milliseconds);
    this.counts.set(metric, (this.counts.get(metric) ?? 0) + 1);
  }
}

const currentRequest = new AsyncLocalStorage<RequestTimings>();

/** Runs `work` with `timings` collecting every mark made beneath it. */
export function collectTimings<T>(timings: RequestTimings, work: () => T): T {
  return currentRequest.run(timings, work);
}

/**
 * Runs `work`, adding how long it took to `metric` of the current request;
 * outside a timed request it only runs `work`.
 *
 * @example const rows = await timed("d1", () => db.prepare(sql).bind(name).all());
 */
export async function timed<T>(metric: TimingMetric, work: () => Promise<T>): Promise<T> {
  const timings = currentRequest.getStore();
  if (!timings) return work();
  const started = performance.now();
  try {
    return await work();
  } finally {
    timings.add(metric, performance.now() - started);
  }
}

/**
 * Records an event of the current request without a duration (it shows in
 * Server-Timing as `name;desc="…"`); outside a timed request it does nothing.
 *
 * @example note("fallback", "lexical: the embedder gave no answer within 800 ms")
 */
export function note(name: string, description: string): void {
  currentRequest.getStore()?.notes.set(name, description);
}

/** What each metric means, for the `desc` of Server-Timing (RFC: W3C Server Timing). */
const DESCRIPTIONS: Record<TimingMetric | "shape", string> = {
  d1: "D1 queries",
  embed: "embedding the query",
  vector: "vector index query",
  shape: "ranking and shaping (tool minus D1)",
  tool: "inside the tool",
  total: "whole request in the Worker",
};

/**
 * The Server-Timing header value for a request's timings: each metric
 * measured, plus `shape` (the tool's time not spent in D1) when a tool ran.
 *
 * @example serverTimingValue(timings) // 'd1;dur=1.20;desc="D1 queries", shape;dur=0.40;desc="…", tool;dur=1.60;desc="…", total;dur=2.10;desc="…"'
 */
export function serverTimingValue(timings: RequestTimings): string {
  const entries: [TimingMetric | "shape", number][] = [];
  const d1 = timings.durations.get("d1");
  const tool = timings.durations.get("tool");
  if (d1 !== undefined) entries.push(["d1", d1]);
  // Hybrid retrieval only: the query embedding runs beside the lexical D1 reads, so `shape` leaves it out only when it ran.
  const embed = timings.durations.get("embed");
  const vector = timings.durations.get("vector");
  if (embed !== undefined) entries.push(["embed", embed]);
  if (vector !== undefined) entries.push(["vector", vector]);
  if (tool !== undefined) entries.push(["shape", Math.max(0, tool - (d1 ?? 0) - (vector ?? 0))], ["tool", tool]);
  const total = timings.durations.get("total");
  if (total !== undefined) entries.push(["total", total]);
  const notes = [...timings.notes].map(([name, description]) => `${name};desc=${JSON.stringify(description)}`);
  return [...entries.map(([metric, duration]) => `${metric};dur=${duration.toFixed(2)};desc="${DESCRIPTIONS[metric]}"`), ...notes].join(", ");
}
