// The query library as a user runs it: `npm run ingest -- library` on StackQL's
// real entries, then `npm start`, then an agent's search → get → render
// through the MCP SDK client over Streamable HTTP.
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import { newStateDir, startServer, type RunningServer } from "./support/harness.ts";

const REAL_LIBRARY = "test/fixtures/stackql-query-library/queries";

function ingest(args: string[]) {
  const run = spawnSync(process.execPath, ["cli/ingest.ts", ...args], { encoding: "utf8", timeout: 120_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

const stateDir = newStateDir();
let server: RunningServer | undefined;

afterAll(async () => {
  await server?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

async function withClient<T>(url: string, work: (call: (name: string, args: Record<string, unknown>) => Promise<CallToolResult>) => Promise<T>): Promise<T> {
  const client = new Client({ name: "almanac-e2e-library", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", url)));
  try {
    return await work(async (name, args) => (await client.callTool({ name, arguments: args })) as CallToolResult);
  } finally {
    await client.close();
  }
}

describe("ingesting StackQL's library, then npm start", () => {
  it("ingests the 29 valid entries and names the 2 refused files and their key", () => {
    const run = ingest(["library", REAL_LIBRARY, "--persist-to", stateDir]);
    expect(run.output).toContain('library "user": 29 added, 0 updated, 0 unchanged, 0 removed, 2 refused');
    expect(run.output).toContain(`${REAL_LIBRARY}/aws/ec2/instance-stop.md: format: unknown key`);
    expect(run.output).toContain(`${REAL_LIBRARY}/aws/cloud_control/log-group-retention-update.md: format: unknown key`);
    expect(run.status).toBe(1);
  });

  it("refuses --remote at once, naming both ids, while wrangler.toml has the placeholder ids", () => {
    const run = ingest(["library", REAL_LIBRARY, "--remote"]);
    expect(run.status).toBe(1);
    expect(run.output).toContain(
      "ingest: wrangler.toml still has placeholder ids; put the real ones there first: " +
        "D1 database_id of DB (`npx wrangler d1 create almanac` prints it); " +
        "KV namespace id of TEMPLATES (`npx wrangler kv namespace create TEMPLATES` prints it)",
    );
    // It stopped before trying to reach Cloudflare at all.
    expect(run.output).not.toContain("Establishing remote connection");
  });

  it("serves search → get → render to an agent, beside the default library, across restarts", async () => {
    for (let start = 0; start < 2; start += 1) {
      server = await startServer([], stateDir);
      await withClient(server.url, async (call) => {
        const search = await call("query_library_search", { intent: "list all s3 buckets" });
        expect((search.structuredContent as { hits: { id: string }[] }).hits[0]?.id).toBe("aws/s3/buckets-list");

        const teaching = await call("query_library_get", { id: "aws/s3/buckets-list" });
        expect(teaching.structuredContent).toMatchObject({ rendered: false, params: [{ name: "region", required: true }] });

        const rendered = await call("query_library_get", { id: "aws/s3/buckets-list", params: { region: "us-east-1" } });
        expect(rendered.structuredContent).toMatchObject({
          valid: true,
          sql: "SELECT bucket_name, region FROM aws.s3.buckets_list_only WHERE region = 'us-east-1';",
          next_tool: "run_select_query",
          source_tier: "primary",
        });

        const defaults = await call("query_library_search", { intent: "list dns records in a cloudflare zone" });
        expect((defaults.structuredContent as { hits: { id: string }[] }).hits[0]?.id).toBe("cloudflare/dns/records-by-type");
      });
      await server.stop();
      server = undefined;
    }
    const again = ingest(["library", REAL_LIBRARY, "--persist-to", stateDir]);
    expect(again.output).toContain('library "user": 0 added, 0 updated, 29 unchanged, 0 removed, 2 refused');
  });
});
