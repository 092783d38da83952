// The official MCP conformance suite, server mode, against the real dev
// server, once per protocol revision Almanac serves: every scenario the
// revision requires, with a baseline that excuses only the checks needing the
// suite's own fixture tools, prompts or resources (test/conformance/*.yaml,
// each with its reason). The suite needs Node >= 22: the project's own Node runs it.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";

const mcpUrl = new URL("/mcp", inject("serverUrl")).href;
const cli = join("node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");

/** Runs the suite's CLI to its end (spawn, not spawnSync: the server shares this process's event loop budget). */
function runSuite(revision: string): Promise<{ status: number | null; output: string }> {
  const resultsDir = mkdtempSync(join(tmpdir(), "almanac-conformance-"));
  const args = [cli, "server", "--url", mcpUrl, "--requirements", revision, "--expected-failures", `test/conformance/expected-failures-${revision}.yaml`, "-o", resultsDir];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (data: Buffer) => (output += data.toString()));
    child.stderr.on("data", (data: Buffer) => (output += data.toString()));
    child.on("close", (status) => {
      rmSync(resultsDir, { recursive: true, force: true });
      resolve({ status, output });
    });
  });
}

describe("MCP conformance suite", () => {
  it.each(["2026-07-28", "2025-11-25"])(
    "passes every check --requirements %s asks for, but the baselined fixture checks",
    async (revision) => {
      const { status, output } = await runSuite(revision);
      const summary = output.slice(output.indexOf("=== SUMMARY ==="));
      expect(status, summary).toBe(0);
      expect(summary).toMatch(/Total: [1-9]\d* passed/);
      expect(summary).not.toMatch(/Unexpected failures|stale/i);
    },
    240_000,
  );
});
