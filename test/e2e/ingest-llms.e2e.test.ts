// `npm run ingest -- llms` against an llms.txt site served by a local server:
// corpus/docs as Markdown pages, an llms.txt linking them (and a page on
// another origin), an llms-full.txt of them all. Then GET /llms.txt of the
// dev server, read back the way another tool would.
import { rmSync } from "node:fs";
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { parseLlmsTxt } from "../../src/readers/llms-txt.ts";
import { newStateDir } from "./support/harness.ts";
import { corpusPages, ingest, serve } from "./support/readers.ts";

const BASE = "https://example.net";
const stateDir = newStateDir();
const pages = corpusPages();
const userAgents = new Set<string>();
let site: Awaited<ReturnType<typeof serve>> | undefined;

/** The page's body without its front matter: what an llms-full.txt holds. */
const body = (text: string) => text.replace(/^---\n[\s\S]*?\n---\n/, "");

beforeAll(async () => {
  site = await serve((request, response) => {
    userAgents.add(String(request.headers["user-agent"]));
    const path = decodeURIComponent(new URL(request.url ?? "/", "http://x").pathname);
    const origin = site?.url ?? "";
    if (path === "/llms.txt") {
      const links = pages.map((page) => `- [${page.path}](/${page.path})`);
      const text = `# Almanac's handbook\n\n> How to run Almanac.\n\n## Docs\n\n${links.join("\n")}\n- [Elsewhere](https://elsewhere.example/guide.md)\n\n## Optional\n\n- [Gone](/gone.md)\n`;
      response.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end(text);
      return;
    }
    if (path === "/llms-full.txt") {
      const sections = pages.map((page) => body(page.text).replace(/^(# .*)\n/, `$1\nSource: ${origin}/${page.path}\n`));
      response.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end(`# Almanac's handbook\n\n> Every page in one file.\n\n${sections.join("\n\n")}`);
      return;
    }
    const page = pages.find((candidate) => `/${candidate.path}` === path);
    if (page) response.writeHead(200, { "content-type": "text/markdown; charset=utf-8" }).end(page.text);
    else response.writeHead(404).end("not found");
  });
});

afterAll(async () => {
  await site?.close();
  rmSync(stateDir, { recursive: true, force: true });
});

const summary = (output: string, base = BASE) => output.split("\n").find((line) => line.startsWith(`${base}:`)) ?? output;

describe("ingesting an llms.txt site", () => {
  it("gives the pages the same folder gives, fetched on the origin only, saying what it skipped", { timeout: 300_000 }, async () => {
    const folder = await ingest(["docs", "corpus/docs", "--base-uri", BASE, "--persist-to", stateDir]);
    expect(summary(folder.output)).toContain(`${pages.length} added, 0 updated, 0 unchanged, 0 removed`);
    // Served at 127.0.0.1 and published as example.net: each page keeps its name and content, so all are unchanged.
    const run = await ingest(["llms", `${site?.url}/llms.txt`, "--base-uri", BASE, "--persist-to", stateDir]);
    expect(run.status, run.output).toBe(0);
    expect(summary(run.output)).toContain(`0 added, 0 updated, ${pages.length} unchanged, 0 removed`);
    expect(run.output).toContain(`llms.txt "Almanac's handbook": ${pages.length} pages fetched, 2 skipped`);
    expect(run.output).toContain("https://elsewhere.example/guide.md: skipped, on another origin; only http://127.0.0.1:");
    expect(run.output).toContain(`${site?.url}/gone.md: skipped, HTTP 404`);
    expect(userAgents).toEqual(new Set(["Almanac/0.1.0 (+https://almanac.dev/docs)"]));
  });

  it("splits an llms-full.txt into its pages, named by their Source lines", { timeout: 300_000 }, async () => {
    const run = await ingest(["llms", `${site?.url}/llms-full.txt`, "--base-uri", "https://full.example", "--persist-to", stateDir]);
    expect(run.status, run.output).toBe(0);
    expect(run.output).toContain(`llms-full.txt "Almanac's handbook": ${pages.length} pages fetched, 0 skipped`);
    expect(summary(run.output, "https://full.example")).toContain(`${pages.length} added`);
  });

  it("exits non-zero saying why when nothing could be fetched", async () => {
    const missing = await ingest(["llms", `${site?.url}/docs/llms.txt`, "--persist-to", stateDir]);
    expect(missing.status).toBe(1);
    expect(missing.output).toContain(`could not read ${site?.url}/docs/llms.txt: ${site?.url}/docs/llms.txt: HTTP 404`);
    const nothing = await ingest(["llms", `${site?.url}/index.md`, "--persist-to", stateDir]);
    expect(nothing.status).toBe(1);
    expect(nothing.output).toContain("lists no links under its ## sections");
  });
});

describe("GET /llms.txt of the dev server", () => {
  const serverUrl = inject("serverUrl");

  it("lists Almanac's own pages, each link answering with that page's Markdown", async () => {
    const response = await fetch(`${serverUrl}/llms.txt`);
    expect(response.status).toBe(200);
    const parsed = parseLlmsTxt(await response.text(), `${serverUrl}/llms.txt`);
    expect(parsed.title).toBe("Almanac");
    expect(parsed.summary).toContain("Developer documentation served over MCP");
    const own = parsed.links.filter((link) => link.section === "almanac.dev");
    expect(own.map((link) => new URL(link.url).pathname).sort()).toEqual(
      pages.map((page) => `/documents/almanac.dev/docs${`/${page.path.replace(/\.md$/, "")}`.replace(/\/index$/, "")}.md`).sort(),
    );
    const page = await fetch(`${serverUrl}/documents/almanac.dev/docs/getting-started.md`);
    expect(page.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    const gettingStarted = pages.find((candidate) => candidate.path === "getting-started.md")?.text ?? "";
    expect(await page.text()).toBe(body(gettingStarted).trim());
  });

  it("refuses a foreign Host (DNS rebinding) and a foreign Origin as the landing page does", async () => {
    // fetch sets Host itself; node:http sends the one given, as a rebound name would arrive.
    const status = (path: string, headers: Record<string, string>) =>
      new Promise<number | undefined>((resolve, reject) => {
        request(`${serverUrl}${path}`, { headers }, (response) => {
          response.resume();
          resolve(response.statusCode);
        })
          .on("error", reject)
          .end();
      });
    expect(await status("/llms.txt", { Host: "evil.example" })).toBe(403);
    expect(await status("/documents/almanac.dev/docs.md", { Origin: "https://evil.example" })).toBe(403);
    expect(await status("/documents/almanac.dev/docs.md", {})).toBe(200);
  });
});
