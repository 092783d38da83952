// One Almanac command at a time on a local state folder. Two processes writing one
// local D1 database at once fail with SQLITE_BUSY (workerd's SQLite does not wait),
// sometimes after the write landed, so a failed write cannot be safely repeated.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** How often a waiting command looks again. */
const POLL_MS = 100;

/** Whether process `pid` is still running (a lock whose owner died is free). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Runs `work` holding the lock of `stateDir`, waiting for any other command that holds it.
 * The lock is a folder (created atomically) naming its owner's pid; a lock left by a
 * process that was killed is taken over.
 */
export async function withStateLock<T>(stateDir: string, work: () => Promise<T>, log: (line: string) => void = console.error): Promise<T> {
  mkdirSync(stateDir, { recursive: true });
  const lock = join(stateDir, "almanac-command.lock");
  let told = false;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, "pid"), String(process.pid));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const owner = Number(readOwner(lock));
      if (owner > 0 && !isRunning(owner)) {
        rmSync(lock, { recursive: true, force: true });
        continue;
      }
      if (!told) log(`waiting for another Almanac command on ${stateDir} to finish${owner > 0 ? ` (process ${owner})` : ""}`);
      told = true;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
  try {
    return await work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** The pid a lock names, or "" while its owner is still writing it. */
function readOwner(lock: string): string {
  try {
    return readFileSync(join(lock, "pid"), "utf8");
  } catch {
    return "";
  }
}
