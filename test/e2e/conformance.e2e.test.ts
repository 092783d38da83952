// The official MCP conformance suite, server mode, for the scenarios that
// apply to a tools-only server. It needs Node >= 22: the project's own Node runs it.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";

const mcpUrl = new URL("/mcp", inject("serverUrl")).href;
const cli = join("node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");

describe("MCP conformance suite", () => {
  it.each(["server-initialize", "ping", "tools-list", "tools-call-error", "dns-rebinding-protection", "server-sse-multiple-streams"])(
    "passes %s",
    (scenario) => {
      const run = spawnSync(process.execPath, [cli, "server", "--url", mcpUrl, "--scenario", scenario], { encoding: "utf8", timeout: 60_000 });
      const output = `${run.stdout}${run.stderr}`;
      expect(run.status, output).toBe(0);
      expect(output).not.toMatch(/\bFAILURE\b/);
      expect(output).toMatch(/Passed: [1-9]/);
    },
  );
});
