// The raw SQLite floor from the benchmark's side: a child process that opens
// the very database file the dev server serves and runs the Worker's own
// statements on it with better-sqlite3 (bench/raw-sqlite-child.mjs).
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createInterface } from "node:readline";
import type { BoundStatement, StatementRunner } from "../src/d1/statements.ts";

const CHILD = new URL("./raw-sqlite-child.mjs", import.meta.url).pathname;

/**
 * A Node that can load better-sqlite3's compiled addon. npm install builds it
 * for the Node that runs npm (here the system Node 20, with nodedir=/usr),
 * while npm scripts run the pinned Node 24, whose ABI differs: so the child
 * runs under whichever of them loads it, the one running us first.
 */
export function nodeForBetterSqlite(): string {
  const candidates = [process.execPath, process.env.npm_node_execpath, "/usr/bin/node", "/usr/local/bin/node"].filter(
    (candidate): candidate is string => Boolean(candidate),
  );
  for (const candidate of [...new Set(candidates)]) {
    const probe = spawnSync(candidate, ["-e", "new (require('better-sqlite3'))(':memory:').exec('CREATE VIRTUAL TABLE t USING fts5(a)')"], { encoding: "utf8" });
    if (probe.status === 0) return candidate;
  }
  throw new Error(`no Node here loads better-sqlite3 (tried ${candidates.join(", ")}); run npm install, or npm rebuild better-sqlite3`);
}

/** The raw floor: the Worker's statements run on the file, timed inside the child (no IPC in the figure). */
export class RawSqlite implements StatementRunner {
  readonly node: string;
  /** Milliseconds the last `rows` call spent executing SQL, and the sum since the last reset. */
  lastMs = 0;
  totalMs = 0;
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting = new Map<number, (reply: { rows?: Record<string, unknown>[][]; ms?: number; error?: string }) => void>();
  private nextId = 0;

  private constructor(node: string) {
    this.node = node;
    this.child = spawn(node, [CHILD], { stdio: ["pipe", "pipe", "pipe"] });
    this.child.stderr.on("data", (data: Buffer) => process.stderr.write(`raw sqlite: ${data.toString()}`));
    createInterface({ input: this.child.stdout }).on("line", (line) => {
      const reply = JSON.parse(line) as { id: number; rows?: Record<string, unknown>[][]; ms?: number; error?: string };
      this.waiting.get(reply.id)?.(reply);
      this.waiting.delete(reply.id);
    });
  }

  /** Opens `path` read-only in a child under a Node that loads better-sqlite3. */
  static async open(path: string): Promise<RawSqlite> {
    const raw = new RawSqlite(nodeForBetterSqlite());
    await raw.send({ path });
    return raw;
  }

  private send(message: Record<string, unknown>): Promise<{ rows?: Record<string, unknown>[][]; ms?: number }> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, (reply) => (reply.error ? reject(new Error(reply.error)) : resolve(reply)));
      this.child.stdin.write(`${JSON.stringify({ id, ...message })}\n`);
    });
  }

  async rows(statements: readonly BoundStatement[]): Promise<Record<string, unknown>[][]> {
    const reply = await this.send({ statements, withRows: true });
    this.lastMs = reply.ms ?? 0;
    this.totalMs += this.lastMs;
    return reply.rows ?? [];
  }

  close(): void {
    this.child.stdin.end();
  }
}
