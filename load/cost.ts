// What one request of each operation costs the server in CPU, measured on its
// own: one caller sends it back to back while /proc counts the CPU time of
// each server process. CPU time per request hardly depends on how busy the
// machine is, where latency does; it says which requests make a busy server slow.
import { percentile } from "../bench/report.ts";
import { type Caller, type Door, type ErrorKind, operations, sendOperation } from "./doors.ts";
import { type ServerProcesses } from "./processes.ts";

/** One operation's cost. */
export interface OperationCost {
  door: Door;
  operation: string;
  requests: number;
  roundTripP50: number;
  workerP50: number;
  /** CPU milliseconds per request, by command in the server's process group. */
  cpuMsPerRequest: Map<string, number>;
  errors: ErrorKind[];
}

function cpuByCommand(processes: ServerProcesses): Map<string, number> {
  const totals = new Map<string, number>();
  for (const { command, cpuSeconds } of processes.sample()) totals.set(command, (totals.get(command) ?? 0) + cpuSeconds);
  return totals;
}

/** `requests` requests of every operation in turn, one at a time; the caller holds a session for the 2025-era ones. */
export async function measureCosts(caller: Caller, processes: ServerProcesses, requests: number): Promise<OperationCost[]> {
  const costs: OperationCost[] = [];
  for (const { door, operation } of operations()) {
    const before = cpuByCommand(processes);
    const times: number[] = [];
    const worker: number[] = [];
    const errors: ErrorKind[] = [];
    for (let i = 0; i < requests; i += 1) {
      const outcome = await sendOperation(caller, door, operation);
      times.push(outcome.ms);
      worker.push(outcome.workerMs ?? Number.NaN);
      if (outcome.error) errors.push(outcome.error);
    }
    const cpuMsPerRequest = new Map<string, number>();
    for (const [command, after] of cpuByCommand(processes)) cpuMsPerRequest.set(command, ((after - (before.get(command) ?? 0)) * 1000) / requests);
    costs.push({ door, operation, requests, roundTripP50: percentile(times, 50), workerP50: percentile(worker, 50), cpuMsPerRequest, errors });
  }
  return costs;
}
