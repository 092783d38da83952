// A real HTTP server on a free loopback port serving a folder the way static hosts do:
// content types by extension, ETag and Last-Modified, 304 for a matching conditional request,
// `dir/` served from `dir/index.html`. Extra routes let a test make a site misbehave.
import { createReadStream, statSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { extname, join, normalize } from "node:path";
import { ingest } from "./readers.ts";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css",
  ".js": "text/javascript",
  ".txt": "text/plain; charset=utf-8",
  ".xml": "application/xml",
  ".png": "image/png",
  ".svg": "image/svg+xml",
};

/** A running site: its URL, what was asked of it, and how to stop it. */
export interface StaticSite {
  url: string;
  /** Every request: method, path and the status answered. */
  requests: { path: string; status: number; userAgent: string; conditional: boolean }[];
  close(): Promise<void>;
}

/** A route a test adds: answers the request itself, or returns false to fall through to the folder. */
type Route = (request: IncomingMessage, response: ServerResponse, url: URL) => boolean | void;

/** Serves `dir` (or only `routes` when dir is null; a route ending in `*` takes every path under it) on 127.0.0.1 at a free port. */
export async function serveSite(dir: string | null, routes: Record<string, Route> = {}): Promise<StaticSite> {
  const requests: StaticSite["requests"] = [];
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const entry = { path: url.pathname, status: 0, userAgent: String(request.headers["user-agent"] ?? ""), conditional: request.headers["if-none-match"] !== undefined || request.headers["if-modified-since"] !== undefined };
    requests.push(entry);
    response.on("finish", () => (entry.status = response.statusCode));
    response.on("close", () => (entry.status ||= response.statusCode));
    const route = routes[url.pathname] ?? Object.entries(routes).find(([path]) => path.endsWith("*") && url.pathname.startsWith(path.slice(0, -1)))?.[1];
    if (route && route(request, response, url) !== false) return;
    if (!dir) return notFound(response);
    let path = normalize(join(dir, decodeURIComponent(url.pathname)));
    if (!path.startsWith(normalize(dir))) return notFound(response);
    let stats;
    try {
      stats = statSync(path);
      if (stats.isDirectory()) {
        path = join(path, "index.html");
        stats = statSync(path);
      }
    } catch {
      return notFound(response);
    }
    const etag = `"${stats.size.toString(16)}-${Math.floor(stats.mtimeMs).toString(16)}"`;
    const lastModified = new Date(Math.floor(stats.mtimeMs / 1000) * 1000).toUTCString();
    const headers = { etag, "last-modified": lastModified, "content-type": TYPES[extname(path)] ?? "application/octet-stream" };
    const ifNoneMatch = request.headers["if-none-match"];
    const ifModifiedSince = request.headers["if-modified-since"];
    if (ifNoneMatch ? ifNoneMatch === etag : ifModifiedSince !== undefined && Date.parse(ifModifiedSince) >= Date.parse(lastModified)) {
      response.writeHead(304, { etag, "last-modified": lastModified });
      response.end();
      return;
    }
    response.writeHead(200, { ...headers, "content-length": stats.size });
    createReadStream(path).pipe(response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function notFound(response: ServerResponse): void {
  response.writeHead(404, { "content-type": "text/plain" });
  response.end("not found");
}

/** Runs `npm run ingest -- …` without blocking this process, which also serves the site being crawled. */
export async function ingestAsync(args: string[], timeoutMs = 900_000): Promise<{ status: number | null; output: string; ms: number }> {
  const { status, output, seconds } = await ingest(args, timeoutMs);
  return { status, output, ms: seconds * 1000 };
}

