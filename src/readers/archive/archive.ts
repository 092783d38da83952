// The repository-archive reader: the Markdown pages of a .tar.gz (or .tar)
// snapshot, as a folder of pages for prepareSite. Runs in a Worker as in the
// CLI: Web Streams and DecompressionStream only.
import { PAGE_EXTENSION } from "../../documents/names.ts";
import { FetchProblem, type Fetcher, fetchWithin } from "../http.ts";
import { readTar, type TarEntry } from "./tar.ts";

/** The bounds of one archive read; each is reported by name when it binds. */
interface ArchiveLimits {
  /** Bytes the archive may expand to (every entry, headers included); past it the archive is refused. */
  maxExpandedBytes: number;
  /** Bytes one page may have; a larger page is skipped and reported. */
  maxPageBytes: number;
  /** Bytes of pages kept in total; past it the archive is refused. */
  maxTotalPageBytes: number;
  /** How many times its gzipped size an archive may expand once past `ratioFloorBytes`; more is a bomb. */
  maxExpansionRatio: number;
  ratioFloorBytes: number;
}

/**
 * 512 MiB expanded: a documentation repository with its images fits many
 * times over, while a decompression bomb (1 GB of zeros is ~1 MB gzipped) is
 * refused after at most that much work, usually at its first header. 8 MiB a
 * page is 30 times the largest page of the corpora Almanac is measured on;
 * 128 MiB of pages is what one ingestion holds in memory at most. Source
 * trees gzip 3 to 10 times, repetitive text (JSON fixtures) up to ~50; zeros
 * ~1000: past 64 MiB expanded, 100 times the compressed bytes read so far
 * (the decompressor reads ahead, so a small bomb trips it near 100 MiB) is a
 * bomb, refused after a fifth of the work the 512 MiB cap would take.
 */
export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = {
  maxExpandedBytes: 512 * 1024 * 1024,
  maxPageBytes: 8 * 1024 * 1024,
  maxTotalPageBytes: 128 * 1024 * 1024,
  maxExpansionRatio: 100,
  ratioFloorBytes: 64 * 1024 * 1024,
};

/** An archive Almanac refuses as a whole: hostile, too large, or not an archive. Nothing is written. */
export class ArchiveRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ArchiveRefused";
  }
}

/** The pages of an archive, relative to the folder read, and the entries passed over with the reason. */
export interface ArchivePages {
  pages: { path: string; text: string }[];
  skipped: { path: string; reason: string }[];
  /** The single top folder stripped from every path (GitHub's `repo-<sha>/`), if the archive had one. */
  topFolder?: string;
  entries: number;
  expandedBytes: number;
}

/** Options of one read. */
interface ArchiveReadOptions {
  /** A folder inside the archive (after its top folder) whose pages alone are read. */
  path?: string;
  limits?: ArchiveLimits;
  /**
   * Only these pages (paths relative to `path`, as the pages are returned):
   * every other entry is passed over unread, so a push that changed one page
   * costs one page's read (src/sources/read-source.ts).
   */
  only?: ReadonlySet<string>;
  /** Called every few thousand entries with a line a person can read. */
  progress?: (line: string) => void;
}

const PROGRESS_EVERY_ENTRIES = 2_000;

const MiB = 1024 * 1024;
/** A size a person reads: bytes under 1 MiB, else MiB. */
const mib = (bytes: number) => (bytes < MiB ? `${bytes} bytes` : `${(bytes / MiB).toFixed(bytes < 10 * MiB ? 1 : 0)} MiB`);

/**
 * Reads the Markdown pages of the archive in `body`: gzip is recognised by
 * its magic bytes, anything else is read as a plain tar. Entries that would
 * leave the archive's folder (an absolute path, a `..` step, a link pointing
 * out) make the whole archive refused (ArchiveRefused), as does expanding
 * past `maxExpandedBytes`; links inside it are never followed, only reported.
 * The read stops at the first refusal, so a bomb costs little.
 *
 * @example await readArchivePages(response.body, { path: "docs" }) // { pages: [{ path: "index.md", text: "# Hi" }], … }
 */
export async function readArchivePages(body: ReadableStream<Uint8Array>, options: ArchiveReadOptions = {}): Promise<ArchivePages> {
  const limits = options.limits ?? DEFAULT_ARCHIVE_LIMITS;
  const folder = options.path === undefined ? "" : checkFolder(options.path);
  // The top folder is known only at the end: an entry is wanted when its path, or its path past the first folder, is a wanted one.
  const wanted = options.only && new Set([...options.only].map((page) => (folder === "" ? page : `${folder}/${page}`)));
  const isWanted = (path: string) => !wanted || wanted.has(path) || wanted.has(path.slice(path.indexOf("/") + 1));
  const kept: { path: string; bytes: Uint8Array }[] = [];
  const skipped: { path: string; reason: string }[] = [];
  const firstSegments = new Set<string>();
  let topLevelFile = false;
  let entries = 0;
  let keptBytes = 0;

  const tar = await gunzipIfGzip(body, limits);
  let consumed: number;
  try {
    ({ consumed } = await readTar(
      tar,
      (entry, consumedSoFar) => {
        entries += 1;
        if (options.progress && entries % PROGRESS_EVERY_ENTRIES === 0) options.progress(`read ${entries} archive entries, ${mib(consumedSoFar)} expanded`);
        const path = checkEntryPath(entry);
        const bodySize = entry.type === "file" ? entry.size : 0;
        if (consumedSoFar + bodySize > limits.maxExpandedBytes) {
          throw new ArchiveRefused(
            `the archive expands past ${mib(limits.maxExpandedBytes)} (the expansion cap) at ${entry.path} (${mib(bodySize)}): ` +
              "a decompression bomb, or a repository far larger than its documentation; nothing was written. " +
              "Read a smaller archive, e.g. one of the documentation folder alone",
          );
        }
        const segments = path.split("/");
        firstSegments.add(segments[0] ?? "");
        if (segments.length === 1 && entry.type !== "directory") topLevelFile = true;
        if (entry.type === "directory") return "skip";
        if (entry.type === "symlink" || entry.type === "hardlink") {
          checkLinkTarget(entry, path);
          if (PAGE_EXTENSION.test(path)) skipped.push({ path, reason: `a ${entry.type === "symlink" ? "symbolic" : "hard"} link to ${entry.linkTarget}; links are not followed` });
          return "skip";
        }
        if (entry.type === "other") {
          if (PAGE_EXTENSION.test(path)) skipped.push({ path, reason: "not a regular file (a device or FIFO)" });
          return "skip";
        }
        if (!PAGE_EXTENSION.test(path) || !isWanted(path)) return "skip";
        if (entry.size > limits.maxPageBytes) {
          skipped.push({ path, reason: `${mib(entry.size)}, over the page cap of ${mib(limits.maxPageBytes)}` });
          return "skip";
        }
        keptBytes += entry.size;
        if (keptBytes > limits.maxTotalPageBytes) {
          throw new ArchiveRefused(`the archive's pages pass ${mib(limits.maxTotalPageBytes)} in total (the pages cap) at ${path}; nothing was written. Read one folder of it with --path`);
        }
        return "read";
      },
      (entry, bytes) => kept.push({ path: normalizePath(entry.path), bytes }),
    ));
  } catch (error) {
    if (error instanceof ArchiveRefused) throw error;
    if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) {
      throw new ArchiveRefused(`the archive's download did not finish in time (${error.message}); nothing was written`);
    }
    if (error instanceof Error && error.name === "TarFormatError") throw new ArchiveRefused(`${error.message}; nothing was written`);
    // DecompressionStream fails with a TypeError on bytes that are not gzip after all.
    // A stream cut short may fail with no message at all: the reason is then said here.
    const why = (error instanceof Error ? error.message : String(error)) || "the gzip data ends early or is corrupt";
    throw new ArchiveRefused(`the archive could not be decompressed (${why}); give a .tar.gz or .tar file; nothing was written`);
  }

  // GitHub (`repo-<sha>/`) and GitLab (`repo-<ref>-<sha>/`) put every entry in one top folder.
  const [onlyTop] = firstSegments;
  const topFolder = firstSegments.size === 1 && !topLevelFile && onlyTop ? onlyTop : undefined;
  const strip = (path: string) => (topFolder ? path.slice(topFolder.length + 1) : path);
  const under = (path: string) => (folder === "" ? path : path.startsWith(`${folder}/`) ? path.slice(folder.length + 1) : undefined);
  // Kept as readFile(…, "utf8") reads a folder's files: a byte-order mark stays, so the pages are the folder's exactly.
  const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
  const pages: ArchivePages["pages"] = [];
  for (const { path, bytes } of kept) {
    const relative = under(strip(path));
    if (relative !== undefined && relative !== "" && (!options.only || options.only.has(relative))) pages.push({ path: relative, text: decoder.decode(bytes) });
  }
  pages.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const skippedHere = skipped.flatMap(({ path, reason }) => {
    const relative = under(strip(path));
    return relative === undefined ? [] : [{ path: relative, reason }];
  });
  return { pages, skipped: skippedHere, topFolder, entries, expandedBytes: consumed };
}

/** Minutes an archive's download may take, body included: a big repository over a slow link, never a stalled one forever. */
const ARCHIVE_DOWNLOAD_TIMEOUT_MS = 5 * 60_000;

/**
 * The body of the archive at `url`, redirects followed (GitHub's archive
 * URLs redirect to codeload.github.com). Refuses an HTML answer, which is a
 * repository's page rather than its archive.
 *
 * @example await downloadArchive("https://github.com/dart-lang/site-www/archive/refs/heads/main.tar.gz")
 */
export async function downloadArchive(url: string, options: { fetch?: Fetcher; timeoutMs?: number } = {}): Promise<ReadableStream<Uint8Array>> {
  let response: Response;
  try {
    response = await fetchWithin(url, options.timeoutMs ?? ARCHIVE_DOWNLOAD_TIMEOUT_MS, { fetch: options.fetch, accept: "application/gzip, application/x-tar, */*;q=0.1" });
  } catch (error) {
    throw new ArchiveRefused(`could not download the archive: ${error instanceof FetchProblem ? error.message : String(error)}`);
  }
  if ((response.headers.get("content-type") ?? "").includes("html")) {
    await response.body?.cancel().catch(() => undefined);
    throw new ArchiveRefused(
      `${url} answers with an HTML page, not an archive; GitHub's look like https://github.com/<owner>/<repo>/archive/refs/heads/<branch>.tar.gz, GitLab's like https://gitlab.com/<group>/<repo>/-/archive/<branch>/<repo>-<branch>.tar.gz`,
    );
  }
  if (!response.body) throw new ArchiveRefused(`${url} answered with an empty body`);
  return response.body;
}

/**
 * The tar stream inside `body`: gunzipped when it starts with gzip's magic
 * bytes, behind a guard that errors the stream (ArchiveRefused) the moment
 * the expansion passes its cap or its ratio, even inside one entry.
 */
async function gunzipIfGzip(body: ReadableStream<Uint8Array>, limits: ArchiveLimits): Promise<ReadableStream<Uint8Array>> {
  const reader = body.getReader();
  let first: Uint8Array = new Uint8Array(0);
  // Two bytes decide; a first chunk may be shorter.
  while (first.byteLength < 2) {
    const { done, value } = await reader.read();
    if (done) break;
    const joined = new Uint8Array(first.byteLength + value.byteLength);
    joined.set(first);
    joined.set(value, first.byteLength);
    first = joined;
  }
  let compressed = 0;
  const replayed = new ReadableStream<Uint8Array>({
    start(controller) {
      compressed += first.byteLength;
      if (first.byteLength > 0) controller.enqueue(first);
    },
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) return controller.close();
      compressed += value.byteLength;
      controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  if (!(first[0] === 0x1f && first[1] === 0x8b)) return replayed;
  let expanded = 0;
  const guard = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      expanded += chunk.byteLength;
      // The tar reader weighs each entry's declared size first; this catches what happens inside one.
      if (expanded > limits.maxExpandedBytes + 1024 * 1024) {
        throw new ArchiveRefused(`the archive expands past ${mib(limits.maxExpandedBytes)} (the expansion cap); a decompression bomb, or a repository far larger than its documentation; nothing was written`);
      }
      if (expanded > limits.ratioFloorBytes && expanded > compressed * limits.maxExpansionRatio) {
        throw new ArchiveRefused(
          `the archive expands more than ${limits.maxExpansionRatio} times its compressed size (${mib(compressed)} to over ${mib(expanded)}, the expansion-ratio cap): a decompression bomb; nothing was written`,
        );
      }
      controller.enqueue(chunk);
    },
  });
  return replayed.pipeThrough(new DecompressionStream("gzip") as unknown as ReadableWritablePair<Uint8Array, Uint8Array>).pipeThrough(guard);
}

/** A `--path` folder: relative, no `..`, with "/" separators and no slashes at the ends. */
function checkFolder(path: string): string {
  const normalized = path.replace(/\\/g, "/").replace(/^\.\/+/, "").replace(/^\/+|\/+$/g, "");
  if (/^[a-z]:/i.test(path) || path.startsWith("/") || normalized.split("/").includes("..")) {
    throw new ArchiveRefused(`--path "${path}" must be a folder inside the archive, such as docs or src/content`);
  }
  return normalized.split("/").filter((segment) => segment !== "" && segment !== ".").join("/");
}

function normalizePath(path: string): string {
  return path
    .replace(/\\/g, "/")
    .split("/")
    .filter((segment) => segment !== "" && segment !== ".")
    .join("/");
}

/**
 * The entry's path, normalized; an absolute path or a `..` step is refused:
 * git never writes one, and its page would be published outside the base URI.
 */
function checkEntryPath(entry: TarEntry): string {
  if (entry.path.startsWith("/") || entry.path.startsWith("\\") || /^[a-z]:/i.test(entry.path)) {
    throw new ArchiveRefused(`the archive has an entry with an absolute path (${entry.path.slice(0, 200)}); a repository snapshot never does, so the archive is refused and nothing was written`);
  }
  if (entry.path.replace(/\\/g, "/").split("/").includes("..")) {
    throw new ArchiveRefused(`the archive has an entry that leaves its folder (${entry.path.slice(0, 200)}); the archive is refused and nothing was written`);
  }
  return normalizePath(entry.path);
}

/** A link pointing outside the archive (absolute, or climbing above its root) makes the archive hostile. */
function checkLinkTarget(entry: TarEntry, path: string): void {
  const target = entry.linkTarget.replace(/\\/g, "/");
  // A symlink resolves from its own folder; a hardlink names a path from the archive's root.
  const start = entry.type === "symlink" ? path.split("/").slice(0, -1) : [];
  let depth = start.length;
  let escapes = target.startsWith("/") || /^[a-z]:/i.test(target);
  for (const segment of target.split("/")) {
    if (segment === "..") depth -= 1;
    else if (segment !== "" && segment !== ".") depth += 1;
    if (depth < 0) escapes = true;
  }
  if (escapes) {
    throw new ArchiveRefused(
      `the archive has a ${entry.type === "symlink" ? "symbolic" : "hard"} link ${path} pointing outside it (to ${entry.linkTarget.slice(0, 200)}); the archive is refused and nothing was written`,
    );
  }
}
