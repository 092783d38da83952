// `npm run ingest -- docs` on a user's folder, then `npm start`: both corpora are served.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, describe, expect, it } from "vitest";
import { cleanSiteMarkup } from "../../src/markdown/site-markup.ts";
import { newStateDir, startServer, type RunningServer } from "./support/harness.ts";

function ingest(args: string[]) {
  const run = spawnSync(process.execPath, ["cli/ingest.ts", ...args], { encoding: "utf8", timeout: 120_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

function folder(pages: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "almanac-docs-"));
  for (const [path, text] of Object.entries(pages)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const stateDir = newStateDir();
let server: RunningServer | undefined;

afterAll(async () => {
  await server?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

/** The parents of the top search hits, asked through a real MCP client. */
async function searchParents(url: string, query: string): Promise<string[]> {
  const client = new Client({ name: "almanac-e2e", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", url)));
  const result = await client.callTool({ name: "search_documents", arguments: { query } });
  await client.close();
  return (result.structuredContent as { results: { parent: string }[] }).results.map((hit) => hit.parent);
}

/**
 * A 270 KB page made of the repository's own documentation, three times over
 * (real Markdown: headings at every level, code fences, tables).
 */
function handbook(): string {
  const dir = "corpus/docs";
  const bodies = readdirSync(dir, { recursive: true })
    .map(String)
    .filter((path) => path.endsWith(".md"))
    .sort()
    .map((path) => readFileSync(join(dir, path), "utf8").replace(/^---\n[\s\S]*?\n---\n/, ""));
  return `---\ntitle: Handbook\n---\n${[1, 2, 3].map((round) => `# Handbook, round ${round}\n\n${bodies.join("\n\n")}`).join("\n\n")}`;
}

/** Reads a page through get_documents, following each part's `next`; every result's text length too. */
async function readThroughHints(url: string, name: string): Promise<{ content: string[]; textLengths: number[] }> {
  const client = new Client({ name: "almanac-e2e", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", url)));
  const content: string[] = [];
  const textLengths: number[] = [];
  let next: string | undefined = name;
  while (next) {
    const result = await client.callTool({ name: "get_documents", arguments: { names: [next] } });
    const [text] = result.content as { text: string }[];
    textLengths.push(text?.text.length ?? 0);
    const [entry] = (result.structuredContent as { documents: { content: string; next?: string }[] }).documents;
    content.push(entry?.content ?? "");
    next = entry?.next;
  }
  await client.close();
  return { content, textLengths };
}

describe("ingesting a folder, then npm start", () => {
  it("refuses a folder with a malformed page, names it, and writes nothing", () => {
    const dir = folder({ "good.md": "---\ntitle: Good\n---\nfine", "guide/bad.md": "---\ntitle: [oops\n---\ntext" });
    const run = ingest(["docs", dir, "--base-uri", "https://example.com/docs", "--persist-to", stateDir]);
    expect(run.status).toBe(1);
    expect(run.output).toContain("guide/bad.md: invalid front matter");
    expect(run.output).toContain("nothing was ingested");
  });

  // npm start prunes the default corpus's base URI to match corpus/docs; a user's pages there would vanish.
  // Regression (issue 24): http:// went through, and its pages were the same documents as https://'s.
  it.each(["https://almanac.dev/docs/mine", "http://almanac.dev/docs", "HTTP://ALMANAC.DEV/docs/mine"])("refuses the default corpus's base URI, which npm start owns, under any scheme (%s)", (baseUri) => {
    const dir = folder({ "mine.md": "---\ntitle: Mine\n---\ntext" });
    const run = ingest(["docs", dir, "--base-uri", baseUri, "--persist-to", stateDir]);
    expect(run.status).toBe(1);
    expect(run.output).toContain("is reserved for Almanac's own documentation");
    // A refusal of the input says why and what to do; the usage text is for a command given wrongly.
    expect(run.output).not.toContain("usage:");
  });

  it("refuses a missing --base-uri with a usage message", () => {
    const run = ingest(["docs", "corpus/docs", "--persist-to", stateDir]);
    expect(run.status).toBe(1);
    expect(run.output).toContain("--base-uri is required");
    expect(run.output).toContain("usage:");
  });

  it("serves the user's pages beside the default corpus, and a restart keeps both", async () => {
    const dir = folder({
      "index.md": "---\ntitle: Widgets\ndescription: The widget manual.\n---\nWidgets are configured with the frobnicate flag.",
      "guide/setup.md": "---\ntitle: Setting up widgets\n---\n## Install\n\nRun the quuxinstaller to set up widgets.",
      "handbook.md": handbook(),
    });
    // --prune would report good.md as removed had the refused run above written it.
    const run = ingest(["docs", dir, "--base-uri", "https://example.com/docs", "--prune", "--persist-to", stateDir]);
    expect(run.output).toContain("https://example.com/docs: 3 added, 0 updated, 0 unchanged, 0 removed");
    expect(run.status).toBe(0);

    for (let start = 0; start < 2; start += 1) {
      server = await startServer([], stateDir);
      expect(await searchParents(server.url, "frobnicate flag")).toContain("documents/example.com/docs");
      expect((await searchParents(server.url, "quuxinstaller"))[0]).toBe("documents/example.com/docs/guide/setup");
      // Beside the user's pages, Almanac's own answer the questions that name Almanac.
      expect((await searchParents(server.url, "connect Claude Desktop to Almanac"))[0]).toBe("documents/almanac.dev/docs/clients/claude-desktop");
      if (start === 0) {
        // A 270 KB page read through the continuation names: each result within the budget, the page exactly once.
        const { content, textLengths } = await readThroughHints(server.url, "documents/example.com/docs/handbook");
        expect(content.length).toBeGreaterThan(10);
        expect(Math.max(...textLengths)).toBeLessThanOrEqual(24_000);
        // The page as ingestion stores it: the body after its front matter, with site markup stripped.
        expect(content.join("")).toBe(cleanSiteMarkup(handbook().replace(/^---\n[\s\S]*?\n---\n/, "")).body);
      }
      await server.stop();
    }
    const again = ingest(["docs", dir, "--base-uri", "https://example.com/docs", "--persist-to", stateDir]);
    expect(again.output).toContain("0 added, 0 updated, 3 unchanged, 0 removed");
  });
});
