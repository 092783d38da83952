// What the readers' end-to-end tests share: the CLI run without blocking
// (the test's own HTTP server must keep answering), a local HTTP server on a
// free port, and archives of corpus/docs built with the tests' ustar writer.
import { spawn } from "node:child_process";
import { createWriteStream, readdirSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import { tarBlocks, type TestEntry } from "../../support/tar-writer.ts";
import { freePort } from "./harness.ts";

/** `npm run ingest -- …` as a child process (with `env` added to the environment): its exit status, output and wall time. */
export function ingest(args: string[], timeoutMs = 170_000, env: Record<string, string> = {}): Promise<{ status: number | null; output: string; seconds: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["cli/ingest.ts", ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
    let output = "";
    child.stdout.on("data", (data: Buffer) => (output += data.toString()));
    child.stderr.on("data", (data: Buffer) => (output += data.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve({ status, output, seconds: (performance.now() - started) / 1000 });
    });
  });
}

/** A loopback HTTP server on a free port answering with `handle`; close() stops it. */
export async function serve(handle: (request: IncomingMessage, response: ServerResponse) => void): Promise<{ url: string; close(): Promise<void> }> {
  const port = await freePort();
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Every Markdown page of corpus/docs, relative paths sorted, with its text. */
export function corpusPages(): { path: string; text: string }[] {
  return readdirSync("corpus/docs", { recursive: true })
    .map(String)
    .filter((path) => path.endsWith(".md"))
    .sort()
    .map((path) => ({ path: path.split("\\").join("/"), text: readFileSync(join("corpus/docs", path), "utf8") }));
}

/** Writes the tar blocks to `file`, gzipped by Node's zlib (the reader's gunzip is the platform's DecompressionStream). */
export async function writeTarGz(file: string, blocks: Iterable<Uint8Array> | AsyncIterable<Uint8Array>, level = 6): Promise<void> {
  await pipeline(Readable.from(blocks), createGzip({ level }), createWriteStream(file));
}

/** A GitHub-style snapshot: everything under one top folder, corpus/docs at `docs/`, plus files that are not pages. */
export function repositoryEntries(top: string): TestEntry[] {
  return [
    { path: `${top}/`, type: "5" },
    { path: `${top}/README.md`, body: "# The repository\n\nNot documentation." },
    { path: `${top}/package.json`, body: "{}" },
    ...corpusPages().map((page) => ({ path: `${top}/docs/${page.path}`, body: page.text })),
    { path: `${top}/docs/images/logo.png`, body: new Uint8Array(3000).fill(7) },
  ];
}

export { tarBlocks };
