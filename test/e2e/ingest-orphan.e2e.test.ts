// Regression (issue 24): `kill -9` of `npm run ingest` left its workerd child (the local D1/KV
// bindings of getPlatformProxy) running as an orphan, writing on. It now ends with its parent.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "almanac-orphan-"));
const stateDir = mkdtempSync(join(tmpdir(), "almanac-orphan-state-"));
for (let i = 0; i < 300; i += 1) writeFileSync(join(dir, `page-${i}.md`), `---\ntitle: Page ${i}\n---\n\n${"Words about orphans and parents. ".repeat(200)}\n`);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(stateDir, { recursive: true, force: true });
});

/** The pids of the processes `pid` started itself. */
function children(pid: number): number[] {
  try {
    return execFileSync("pgrep", ["-P", String(pid)], { encoding: "utf8" }).split("\n").filter(Boolean).map(Number);
  } catch {
    // pgrep exits 1 when there are none.
    return [];
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The command line of a process, or "" once it is gone. */
function commandOf(pid: number): string {
  try {
    return execFileSync("ps", ["-o", "args=", "-p", String(pid)], { encoding: "utf8" }).trim();
  } catch {
    return "";
  }
}

describe.skipIf(process.platform === "win32")("the ingest CLI killed with SIGKILL", () => {
  it("takes its workerd with it", async () => {
    const cli = spawn(process.execPath, ["cli/ingest.ts", "docs", dir, "--base-uri", "https://orphan.example/docs", "--persist-to", stateDir], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const workerd = await new Promise<number[]>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`workerd never started:\n${output}`)), 60_000);
      const look = () => {
        // getPlatformProxy's workerd is the CLI's own child.
        const running = children(cli.pid ?? 0).filter((pid) => /workerd serve /.test(commandOf(pid)));
        // Killed while it writes, as the probe found it: a workerd that has its config and is busy.
        if (running.length > 0 && /writing \d+ pages/.test(output)) {
          clearTimeout(timer);
          resolve(running);
        } else {
          setTimeout(look, 100);
        }
      };
      cli.stdout.on("data", (data: Buffer) => (output += data.toString()));
      cli.stderr.on("data", (data: Buffer) => (output += data.toString()));
      look();
    });
    // Only the CLI itself, as `kill -9 <pid>` would: not its process group.
    process.kill(cli.pid ?? 0, "SIGKILL");
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && workerd.some(alive)) await new Promise((resolve) => setTimeout(resolve, 200));
    const left = workerd.filter(alive);
    // Only processes this test started are ever killed.
    for (const pid of left) process.kill(pid, "SIGKILL");
    expect(left).toEqual([]);
  });
});
