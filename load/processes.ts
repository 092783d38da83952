// The server's processes as Linux sees them (/proc): which ones serve a
// port, their memory and the CPU time they have used, so a load run can say
// how much of the machine went to workerd, to wrangler and to itself.
import { readFileSync, readdirSync, readlinkSync } from "node:fs";
import { cpus } from "node:os";

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ; 100 on every Linux this runs on). */
const TICKS_PER_SECOND = 100;

/** One process of the server's tree at one moment. */
export interface ProcessSample {
  pid: number;
  /** `workerd` or `node` (wrangler, the start script), or whatever else shares the group. */
  command: string;
  rssBytes: number;
  /** User + system CPU time since the process started, in seconds. */
  cpuSeconds: number;
}

/** Fields of /proc/<pid>/stat after the command (which may itself hold spaces and parentheses). */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null; // Gone since it was listed.
  }
}

/** The executable's base name: `workerd`, `node`, `esbuild` (comm is cut at 15 characters and renamed by Node's threads). */
function commandOf(pid: number): string {
  try {
    return readlinkSync(`/proc/${pid}/exe`).split("/").pop() ?? "?";
  } catch {
    return "?";
  }
}

function sample(pid: number): ProcessSample | null {
  const fields = statFields(pid);
  if (!fields) return null;
  // After the command: state(0) ppid(1) pgrp(2) … utime(11) stime(12) … rss in pages(21).
  const cpuSeconds = (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  const rssBytes = Number(fields[21]) * 4096;
  return { pid, command: commandOf(pid), rssBytes, cpuSeconds };
}

function allPids(): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
}

/**
 * The pid listening on a loopback TCP port (IPv4 or IPv6): the socket's
 * inode from /proc/net/tcp*, then the process holding it open. Null when it
 * is not ours to see (another user's process) or nobody listens.
 */
export function listeningPid(port: number): number | null {
  const inodes = new Set<string>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text = "";
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const columns = line.trim().split(/\s+/);
      const local = columns[1] ?? "";
      // State 0A is LISTEN; the port is the hex after the colon.
      if (columns[3] === "0A" && Number.parseInt(local.split(":")[1] ?? "", 16) === port && columns[9]) inodes.add(columns[9]);
    }
  }
  if (inodes.size === 0) return null;
  for (const pid of allPids()) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        if (target.startsWith("socket:[") && inodes.has(target.slice(8, -1))) return pid;
      } catch {
        // Closed while we looked.
      }
    }
  }
  return null;
}

/**
 * The processes of the server: every process in the process group of the
 * one listening on its port. `npm start` (and the harness, which starts it
 * detached) runs node, wrangler and both workerd processes (wrangler's
 * proxy, which holds the port, and the Worker's own) in one group.
 */
export class ServerProcesses {
  private readonly group: number;
  private readonly listener: number;

  private constructor(group: number, listener: number) {
    this.group = group;
    this.listener = listener;
  }

  /** The server's group, found from its port; null when its processes cannot be seen. */
  static ofPort(port: number): ServerProcesses | null {
    const pid = listeningPid(port);
    const group = pid === null ? null : Number(statFields(pid)?.[2]);
    return pid !== null && group ? new ServerProcesses(group, pid) : null;
  }

  /**
   * Every live process of the group now. The one holding the port is named
   * with " proxy" added: under `wrangler dev` it is wrangler's proxy worker,
   * a workerd of its own in front of the one that runs Almanac.
   */
  sample(): ProcessSample[] {
    const samples: ProcessSample[] = [];
    for (const pid of allPids()) {
      if (Number(statFields(pid)?.[2]) !== this.group) continue;
      const one = sample(pid);
      if (one) samples.push(pid === this.listener ? { ...one, command: `${one.command} proxy` } : one);
    }
    return samples;
  }
}

/** RSS and CPU seconds of the samples, summed per command. */
export function byCommand(samples: readonly ProcessSample[]): Map<string, { rssBytes: number; cpuSeconds: number; count: number }> {
  const totals = new Map<string, { rssBytes: number; cpuSeconds: number; count: number }>();
  for (const { command, rssBytes, cpuSeconds } of samples) {
    const total = totals.get(command) ?? { rssBytes: 0, cpuSeconds: 0, count: 0 };
    totals.set(command, { rssBytes: total.rssBytes + rssBytes, cpuSeconds: total.cpuSeconds + cpuSeconds, count: total.count + 1 });
  }
  return totals;
}

/** The machine's 1-, 5- and 15-minute load averages, and its core count. */
export function machineLoad(): { one: number; five: number; fifteen: number; cores: number } {
  const [one, five, fifteen] = readFileSync("/proc/loadavg", "utf8").split(" ").map(Number);
  return { one: one ?? Number.NaN, five: five ?? Number.NaN, fifteen: fifteen ?? Number.NaN, cores: cpus().length };
}

/** Busy and total CPU time of the whole machine so far (/proc/stat), in seconds. */
export function machineCpu(): { busySeconds: number; totalSeconds: number } {
  const fields = (readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "").trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((sum, value) => sum + value, 0);
  // idle (3) and iowait (4) are not busy.
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busySeconds: (total - idle) / TICKS_PER_SECOND, totalSeconds: total / TICKS_PER_SECOND };
}
