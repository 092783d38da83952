// A source's origin for the webhook tests and the push-freshness measurement
// (issue 38): a real local git repository of Markdown pages, served on
// loopback as GitHub serves a branch's snapshot (`git archive` of HEAD at
// /<owner>/<repo>/archive/refs/heads/main.tar.gz), and the push bodies and
// signatures GitHub would send after a commit.
import { execFileSync } from "node:child_process";
import { createHmac } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "./readers.ts";

export interface GitOrigin {
  /** The archive URL a source reads. */
  archiveUrl: string;
  /** Archive downloads so far. */
  downloads: number;
  /** Writes `text` at `path` (relative to the repository), commits, and returns GitHub's push body for that commit. */
  commit(changes: Record<string, string | null>, message?: string): GitPush;
  close(): Promise<void>;
}

/** What GitHub sends for one push of one commit. */
export interface GitPush {
  commit: string;
  body: string;
}

/** The text of page `i` at `word`, with a line that makes each page its own. */
export function pageText(i: number, word: string): string {
  return `# Page ${i}\n\nGitword${word} text of page ${i}. It explains the setting number ${i} of the handbook.\n`;
}

/** A repository with `pages` pages under docs/ (and a file that is not a page), committed, and served. */
export async function startGitOrigin(pages: number, word = "alpha"): Promise<GitOrigin> {
  const dir = mkdtempSync(join(tmpdir(), "almanac-git-"));
  const git = (...args: string[]) => execFileSync("git", ["-C", dir, ...args], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 }).trim();
  git("init", "-q", "-b", "main");
  git("config", "user.email", "origin@example.test");
  git("config", "user.name", "Origin");
  mkdirSync(join(dir, "docs"));
  for (let i = 0; i < pages; i += 1) writeFileSync(join(dir, "docs", `p${i}.md`), pageText(i, word));
  writeFileSync(join(dir, "README.txt"), "Not a page.\n");
  git("add", "-A");
  git("commit", "-q", "-m", "first");
  const origin = {
    archiveUrl: "",
    downloads: 0,
    commit(changes: Record<string, string | null>, message = "change"): GitPush {
      const before = git("rev-parse", "HEAD");
      for (const [path, text] of Object.entries(changes)) {
        if (text === null) git("rm", "-q", path);
        else writeFileSync(join(dir, path), text);
      }
      git("add", "-A");
      git("commit", "-q", "-m", message);
      const after = git("rev-parse", "HEAD");
      // git's own account of the commit, as GitHub reports it: A(dded), M(odified), D(eleted) paths.
      const status = git("diff", "--name-status", before, after).split("\n").filter(Boolean).map((line) => line.split("\t") as [string, string]);
      const of = (flag: string) => status.filter(([kind]) => kind.startsWith(flag)).map(([, path]) => path);
      const body = JSON.stringify({
        ref: "refs/heads/main",
        before,
        after,
        repository: { full_name: "acme/handbook" },
        commits: [{ id: after, message, added: of("A"), modified: of("M"), removed: of("D") }],
        head_commit: { id: after },
      });
      return { commit: after, body };
    },
    close: async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  const server = await serve((request, response) => {
    if (request.url !== "/acme/handbook/archive/refs/heads/main.tar.gz") {
      response.writeHead(404).end("not found");
      return;
    }
    origin.downloads += 1;
    const head = git("rev-parse", "--short", "HEAD");
    const bytes = execFileSync("git", ["-C", dir, "archive", "--format=tar.gz", `--prefix=handbook-${head}/`, "HEAD"], { maxBuffer: 256 * 1024 * 1024 });
    response.writeHead(200, { "content-type": "application/x-gzip", "content-length": bytes.byteLength }).end(bytes);
  });
  origin.archiveUrl = `${server.url}/acme/handbook/archive/refs/heads/main.tar.gz`;
  return origin;
}

/** The headers GitHub sends with a push body signed with `secret`. */
export function githubHeaders(secret: string, body: string, delivery: string): Record<string, string> {
  return {
    "content-type": "application/json",
    "x-github-event": "push",
    "x-github-delivery": delivery,
    "x-hub-signature-256": `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`,
  };
}
