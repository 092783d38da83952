// A documentation site from a Debian package, served on 127.0.0.1 for the site reader to crawl (Node only).
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, stat } from "node:fs/promises";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize, resolve } from "node:path";

/** Where packages that are not installed are unpacked: kept across runs, outside the repository's sources. */
export const PACKAGE_CACHE = resolve("eval/.cache/packages");

/**
 * The folder that holds `serve` of `pkg`: the installed one when the package
 * is installed, else the package downloaded with `apt-get download` (no root
 * needed) and unpacked under PACKAGE_CACHE. Unpacking instead of installing
 * matters: nodejs-doc, installed, conflicts with NodeSource's nodejs and
 * removes the very Node that runs this. A folder another package owns is not
 * this one's (NodeSource's nodejs ships /usr/share/doc/nodejs/api, Node 20's
 * docs; sqlite3 ships /usr/share/doc/sqlite3 with no pages); a folder no
 * package owns is served as it is.
 */
export async function packageFolder(pkg: string, serve: string): Promise<string> {
  if (existsSync(serve)) {
    const owners = packagesOwning(serve);
    if (owners.length === 0 || owners.includes(pkg)) return serve;
  }
  const unpacked = join(PACKAGE_CACHE, pkg);
  const inCache = join(unpacked, serve);
  if (existsSync(inCache)) return inCache;
  await mkdir(PACKAGE_CACHE, { recursive: true });
  try {
    execFileSync("apt-get", ["download", pkg], { cwd: PACKAGE_CACHE, stdio: ["ignore", "ignore", "pipe"] });
  } catch (error) {
    const said = error instanceof Error && "stderr" in error ? String(error.stderr).trim() : String(error);
    throw new Error(`${serve} is not on this machine and "apt-get download ${pkg}" failed (${said}); run "apt-get update" (as root), or install ${pkg}`);
  }
  const deb = (await readdir(PACKAGE_CACHE)).find((name) => name.startsWith(`${pkg}_`) && name.endsWith(".deb"));
  if (!deb) throw new Error(`apt-get download ${pkg} left no .deb in ${PACKAGE_CACHE}`);
  execFileSync("dpkg-deb", ["-x", join(PACKAGE_CACHE, deb), unpacked]);
  if (!existsSync(inCache)) throw new Error(`${pkg} has no ${serve}; check the question file's "serve"`);
  return inCache;
}

/** The packages dpkg says installed `path` (without their architecture); none for a path of one's own. */
function packagesOwning(path: string): string[] {
  try {
    const said = execFileSync("dpkg-query", ["-S", path], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
    return said
      .split("\n")
      .filter((line) => line.endsWith(`: ${path}`))
      .flatMap((line) => line.slice(0, -`: ${path}`.length).split(", "))
      .map((owner) => owner.split(":")[0] ?? owner);
  } catch {
    return [];
  }
}

/** The package's version, which the crawl cache is keyed by: installed, else the unpacked .deb's. */
export function packageVersion(pkg: string): string {
  try {
    // dpkg remembers packages that were removed, with their version: only "installed" counts.
    const [status, version] = execFileSync("dpkg-query", ["-W", "-f=${db:Status-Status} ${Version}", pkg], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim().split(" ");
    return status === "installed" && version ? version : "unpacked";
  } catch {
    return "unpacked";
  }
}

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".htm": "text/html; charset=utf-8",
  ".xml": "application/xml",
  ".txt": "text/plain; charset=utf-8",
  ".css": "text/css",
  ".js": "text/javascript",
  ".json": "application/json",
  ".png": "image/png",
  ".svg": "image/svg+xml",
};

/** A static file server over one folder on 127.0.0.1, as a documentation host would serve it. */
export interface ServedSite {
  /** `http://127.0.0.1:<port>/`: the crawl starts here. */
  origin: string;
  close(): Promise<void>;
}

/**
 * Serves `root` on an ephemeral port: files by path, a folder by its
 * index.html, `/` by `start` (redirecting to it when it is not the root's
 * index.html, as sites that keep their docs in a subfolder do), 404 otherwise.
 * No path leaves `root`.
 */
export async function serveFolder(root: string, start: string): Promise<ServedSite> {
  const answer = async (url: string, response: ServerResponse): Promise<void> => {
    const path = new URL(url, "http://served").pathname;
    if (path === "/" && start !== "index.html") {
      response.writeHead(302, { location: `/${start}` }).end();
      return;
    }
    try {
      let file = normalize(join(root, decodeURIComponent(path)));
      if (!file.startsWith(root)) throw new Error("outside the root");
      if ((await stat(file)).isDirectory()) file = join(file, "index.html");
      const body = await readFile(file);
      response.writeHead(200, { "content-type": CONTENT_TYPES[extname(file).toLowerCase()] ?? "application/octet-stream", "content-length": body.byteLength });
      response.end(body);
    } catch {
      response.writeHead(404, { "content-type": "text/plain" }).end("not found");
    }
  };
  const server = createServer((request, response) => void answer(request.url ?? "/", response));
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}/`,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}
