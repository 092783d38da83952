// `npm run ingest -- site` against a hostile site served by the test: endless generated links,
// a redirect to another host, a 10 MB page, a page that never finishes, a wrong canonical link.
// The run must finish, stay within its caps, report each case, and write only whole pages.
import type { ServerResponse } from "node:http";
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newStateDir, startServer, type RunningServer } from "./support/harness.ts";
import { ingestAsync, serveSite, type StaticSite } from "./support/static-site.ts";

const page = (title: string, body: string, head = "") =>
  `<!doctype html><html><head><title>${title}</title>${head}</head><body><nav><a href="/docs/">Home</a></nav><main><h1>${title}</h1>${body}</main></body></html>`;

function html(response: ServerResponse, body: string): void {
  response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
  response.end(body);
}

describe("crawling a hostile site", () => {
  const stateDir = newStateDir();
  let site: StaticSite;
  let server: RunningServer | undefined;
  let run: Awaited<ReturnType<typeof ingestAsync>>;
  const hanging: ServerResponse[] = [];

  beforeAll(async () => {
    site = await serveSite(null, {
      "/robots.txt": (_request, response) => {
        response.writeHead(200, { "content-type": "text/plain" });
        response.end("User-agent: *\nDisallow: /docs/secret\n");
      },
      "/docs/": (_request, response) =>
        html(
          response,
          page("Home", `<p>Hostile home page.</p><a href="gen/1">Generated</a> <a href="away">Away</a> <a href="huge">Huge</a> <a href="hang">Hang</a> <a href="wrong-canonical">Canonical</a> <a href="secret">Secret</a>`),
        ),
      "/docs/away": (_request, response) => {
        response.writeHead(302, { location: "http://attacker.invalid/collect" });
        response.end();
      },
      "/docs/huge": (_request, response) => {
        // 10 MB in chunks, without a content-length, so only the reader's own count can stop it.
        response.writeHead(200, { "content-type": "text/html" });
        const chunk = `<p>${"x".repeat(64 * 1024 - 7)}</p>`;
        let sent = 0;
        const push = () => {
          while (sent < 160) {
            sent += 1;
            if (!response.write(chunk)) return void response.once("drain", push);
          }
          response.end();
        };
        response.on("error", () => {});
        push();
      },
      "/docs/hang": (_request, response) => {
        response.writeHead(200, { "content-type": "text/html" });
        response.write("<html><body><main><p>This page never finishes");
        hanging.push(response);
      },
      // A page of links to two more generated pages, for ever.
      "/docs/gen/*": (_request, response, url) => {
        const n = Number(url.pathname.split("/").pop()) || 1;
        html(response, page(`Generated ${n}`, `<p>Generated page ${n}.</p><a href="${2 * n}">next</a> <a href="${2 * n + 1}">other</a>`));
      },
      "/docs/wrong-canonical": (_request, response) =>
        html(response, page("Canonical", "<p>A page whose canonical link points at another host.</p>", `<link rel="canonical" href="https://attacker.invalid/stolen">`)),
    });
    run = await ingestAsync(["site", `${site.url}/docs/`, "--max-pages", "40", "--timeout", "3", "--persist-to", stateDir]);
    console.log(run.output);
    server = await startServer([], stateDir);
  }, 300_000);

  afterAll(async () => {
    for (const response of hanging) response.destroy();
    await server?.stop();
    await site?.close();
    rmSync(stateDir, { recursive: true, force: true });
  });

  it("finishes, stops at --max-pages on endless links, and says so", () => {
    expect(run.status, run.output).toBe(0);
    expect(run.output).toMatch(/stopped at --max-pages 40: the site has more pages than were read/);
    expect(run.output).toMatch(/… and \d+ more URLs not read: the crawl stopped at --max-pages 40/);
    expect(run.ms).toBeLessThan(120_000);
    expect(site.requests.filter((request) => request.path.startsWith("/docs/gen/")).length).toBeLessThanOrEqual(40);
  });

  it("reports each hostile page with its reason", () => {
    const origin = site.url;
    expect(run.output).toContain(`${origin}/docs/away: skipped, redirects to another host (http://attacker.invalid/collect); not followed`);
    expect(run.output).toContain(`${origin}/docs/huge: skipped, the page is over the 5 MB cap`);
    // Tried once more at the end of the line, unless --max-pages came first.
    expect(run.output).toMatch(new RegExp(`${origin}/docs/hang: skipped, timed out after 3 s(, tried twice|; not tried again: the crawl stopped at --max-pages 40)`));
    expect(run.output).toContain(`${origin}/docs/secret: skipped, disallowed by robots.txt`);
    expect(run.output).toContain(`${origin}/docs/wrong-canonical: canonical https://attacker.invalid/stolen ignored`);
    expect(site.requests.some((request) => request.path === "/docs/secret")).toBe(false);
  });

  it("writes whole pages only, under their own URLs, and nothing of the hostile ones", async () => {
    const name = (path: string) => `documents/${site.url.replace("http://", "")}/docs/${path}`;
    const get = (path: string) => fetch(`${server?.url}/v1/${name(path)}`);
    const canonical = (await (await get("wrong-canonical")).json()) as { content: string };
    expect(canonical.content).toBe("# Canonical {#intro-part-2}\n\nA page whose canonical link points at another host.");
    for (const path of ["huge", "hang", "away", "secret"]) expect((await get(path)).status, path).toBe(404);
    expect((await fetch(`${server?.url}/v1/documents/attacker.invalid/stolen`)).status).toBe(404);
  });

  it("exits non-zero with the reason, writing nothing, when no page can be read", async () => {
    const down = await serveSite(null, {
      "/robots.txt": (_request, response) => {
        response.writeHead(503);
        response.end();
      },
    });
    try {
      const failed = await ingestAsync(["site", `${down.url}/`, "--persist-to", stateDir]);
      expect(failed.status).toBe(1);
      expect(failed.output).toContain(`ingest: fetched no page from ${down.url}/, nothing was written:\n  ${down.url}/robots.txt: robots.txt could not be read (HTTP 503)`);
    } finally {
      await down.close();
    }
  });
});

