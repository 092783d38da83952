// Starts the real dev server the way a user does (`npm start`), on a free
// port with its own state folder, and stops it afterwards.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface RunningServer {
  url: string;
  stateDir: string;
  stop(): Promise<void>;
}

/** A TCP port nobody is listening on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A fresh folder for local D1/KV/Durable Object state. */
export function newStateDir(): string {
  return mkdtempSync(join(tmpdir(), "almanac-e2e-"));
}

/**
 * The per-minute search and get limits every test server starts with: e2e
 * files search and read far faster than a person, from one address. A file
 * that tests the limits passes its own `--var`s, which come later and win.
 */
const ROOMY_READ_LIMITS = ["QUOTA_SEARCH_PER_MINUTE", "QUOTA_PUBLIC_SEARCH_PER_MINUTE", "QUOTA_GET_PER_MINUTE", "QUOTA_PUBLIC_GET_PER_MINUTE"].flatMap((name) => ["--var", `${name}:1000000`]);

/**
 * Runs `node cli/start.ts` (what `npm start` runs) and waits until /healthz
 * answers. A state folder the harness made is removed on stop; a given one is kept.
 * Files run side by side: when another file's server took the free port first, it starts again on another.
 */
export async function startServer(extraArgs: string[] = [], givenStateDir?: string): Promise<RunningServer> {
  const stateDir = givenStateDir ?? newStateDir();
  for (let attempt = 1; ; attempt += 1) {
    const started = await startOnFreePort(stateDir, extraArgs);
    if ("child" in started) return running(started.child, started.url, stateDir, givenStateDir === undefined);
    if (!/Address already in use/.test(started.output) || attempt === 3) throw new Error(`npm start exited with ${started.code}:\n${started.output}`);
  }
}

async function startOnFreePort(stateDir: string, extraArgs: string[]): Promise<{ child: ChildProcess; url: string } | { code: number; output: string }> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ["cli/start.ts", "--persist-to", stateDir, ...ROOMY_READ_LIMITS, ...extraArgs], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  child.stdout?.on("data", (data: Buffer) => (output += data.toString()));
  child.stderr?.on("data", (data: Buffer) => (output += data.toString()));
  const url = `http://localhost:${port}`;
  const deadline = Date.now() + 150_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) return { code: child.exitCode, output };
    try {
      const response = await fetch(`${url}/healthz`);
      if (response.ok) return { child, url };
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  if (child.pid) process.kill(-child.pid, "SIGKILL");
  throw new Error(`the dev server did not answer /healthz in time:\n${output}`);
}

function running(child: ChildProcess, url: string, stateDir: string, removeState: boolean): RunningServer {
  return {
    url,
    stateDir,
    async stop() {
      if (child.exitCode === null && child.pid) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        process.kill(-child.pid, "SIGTERM");
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
        if (child.exitCode === null) process.kill(-child.pid, "SIGKILL");
      }
      if (removeState) rmSync(stateDir, { recursive: true, force: true });
    },
  };
}
