// How every reader asks for something over HTTP: who it says it is, how long
// it waits (one deadline for headers and body), how much it takes. fetch and
// Web Streams only, so the same code runs in the Worker and in the CLI.
import { concatBytes } from "../text/bytes.ts";

/** Almanac's version, as package.json and the MCP server info give it (a test holds them equal). */
export const ALMANAC_VERSION = "0.1.0";

/** The User-Agent of every reader's request, so a site's operator sees who asks and where to read more. */
export const READER_USER_AGENT = `Almanac/${ALMANAC_VERSION} (+https://almanac.dev/docs)`;

/** A response a reader could not use; the message names the URL and what to do. */
export class FetchProblem extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FetchProblem";
  }
}

/** A body a reader will not take (over its cap, gzip cut short): asking again would not help. */
export class BodyRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BodyRefused";
  }
}

/** The fetch a reader calls: the platform's by default, a Worker binding's or a test's otherwise. */
export type Fetcher = (input: Request | string | URL, init?: RequestInit) => Promise<Response>;

/** How one request is made. */
interface RequestOptions {
  /** Headers and body together, in milliseconds. */
  timeoutMs: number;
  fetch?: Fetcher;
  userAgent?: string;
  headers?: Record<string, string>;
  /** "manual" hands redirects back to the reader, which decides which to follow. */
  redirect?: "follow" | "manual";
}

// Each response's deadline, so reading its body later keeps the same clock.
const deadlines = new WeakMap<Request | Response, AbortSignal>();

/**
 * GETs `url` with the reader's User-Agent under one deadline that also
 * covers reading the body (readBody). The deadline is enforced here, not only
 * by the signal, so a fetch that ignores its signal cannot hang a reader.
 * Throws what fetch throws, or a TimeoutError.
 */
export async function request(url: string, options: RequestOptions): Promise<Response> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  const fetcher = options.fetch ?? fetch;
  const response = await withinDeadline(
    fetcher(url, { headers: { "user-agent": options.userAgent ?? READER_USER_AGENT, ...options.headers }, redirect: options.redirect ?? "follow", signal }),
    signal,
  );
  deadlines.set(response, signal);
  return response;
}

/** How much of a body to take. */
interface BodyOptions {
  maxBytes: number;
  /** Named in the refusal: "the page is over the 5 MB cap". */
  what: string;
  /** Past `maxBytes`, keep the first `maxBytes` bytes and say `cut` (robots.txt: RFC 9309 reads a prefix). */
  keepFirst?: boolean;
  /** Called with every chunk's size as it arrives (a run's byte cap throws from here). */
  onBytes?: (bytes: number) => void;
}

/**
 * The body of `message` within `maxBytes`, counted as it arrives so a body
 * that never ends costs at most that much: a response (within the deadline
 * `request` set), or a request a sender pushed to the Worker (a webhook's).
 * A declared Content-Length over the cap is refused before any byte is read.
 * Throws BodyRefused past the cap, a TimeoutError past the deadline.
 */
export async function readBody(message: Request | Response, options: BodyOptions): Promise<{ bytes: Uint8Array; cut: boolean }> {
  const { maxBytes, what, keepFirst = false } = options;
  const declared = Number(message.headers.get("content-length") ?? Number.NaN);
  if (!keepFirst && Number.isFinite(declared) && declared > maxBytes) {
    await message.body?.cancel().catch(() => undefined);
    throw new BodyRefused(`${what} is ${formatBytes(declared)}, over the ${formatBytes(maxBytes)} cap`);
  }
  const reader = message.body?.getReader();
  if (!reader) return { bytes: new Uint8Array(), cut: false };
  const signal = deadlines.get(message);
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await withinDeadline(reader.read(), signal);
      if (done) break;
      options.onBytes?.(value.byteLength);
      if (size + value.byteLength > maxBytes) {
        if (!keepFirst) throw new BodyRefused(`${what} is over the ${formatBytes(maxBytes)} cap`);
        parts.push(value.subarray(0, maxBytes - size));
        reader.cancel().catch(() => undefined);
        return { bytes: concatBytes(parts, maxBytes), cut: true };
      }
      size += value.byteLength;
      parts.push(value);
    }
  } catch (error) {
    reader.cancel().catch(() => undefined);
    throw error;
  }
  return { bytes: concatBytes(parts, size), cut: false };
}

/**
 * GETs `url` within `timeoutMs` and refuses a failure, a timeout or a
 * non-2xx status (a 3xx too, unless `redirect` is "manual") with a
 * FetchProblem that names the URL.
 */
export async function fetchWithin(url: string, timeoutMs: number, options: { fetch?: Fetcher; accept?: string; redirect?: "follow" | "manual" } = {}): Promise<Response> {
  let response: Response;
  try {
    response = await request(url, { timeoutMs, fetch: options.fetch, redirect: options.redirect, headers: { accept: options.accept ?? "*/*" } });
  } catch (error) {
    throw new FetchProblem(isTimeout(error) ? `${url}: no answer within ${seconds(timeoutMs)} s` : `${url}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const redirectKept = options.redirect === "manual" && response.status >= 300 && response.status < 400;
  if (!response.ok && !redirectKept) {
    await response.body?.cancel().catch(() => undefined);
    throw new FetchProblem(`${url}: HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`);
  }
  return response;
}

/** The body of a response from fetchWithin as UTF-8 text, within `maxBytes` and its request's deadline; FetchProblem otherwise. */
export async function readTextWithin(url: string, response: Response, maxBytes: number, timeoutMs: number): Promise<string> {
  try {
    const { bytes } = await readBody(response, { maxBytes, what: "the page" });
    return new TextDecoder("utf-8", { fatal: false, ignoreBOM: true }).decode(bytes);
  } catch (error) {
    if (error instanceof BodyRefused) throw new FetchProblem(`${url}: more than ${maxBytes} bytes, over the cap a page`);
    if (isTimeout(error)) throw new FetchProblem(`${url}: the body did not finish within ${seconds(timeoutMs)} s`);
    throw new FetchProblem(`${url}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The text of `body`, gunzipped when it starts with gzip's magic bytes (`sitemap.xml.gz`), within `maxBytes` expanded. */
export async function gunzipText(body: Uint8Array, maxBytes: number): Promise<string> {
  if (!(body[0] === 0x1f && body[1] === 0x8b)) return new TextDecoder().decode(body);
  const reader = new Blob([body]).stream().pipeThrough(new DecompressionStream("gzip")).getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch (error) {
      // DecompressionStream's error for a stream cut short may have no message at all.
      throw new BodyRefused(`is not whole gzip (${(error instanceof Error && error.message) || "it ends early or is corrupt"})`);
    }
    if (chunk.done) break;
    size += chunk.value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new BodyRefused(`expands past the ${formatBytes(maxBytes)} cap`);
    }
    parts.push(chunk.value);
  }
  return new TextDecoder().decode(concatBytes(parts, size));
}

/** `work`, or a TimeoutError when the signal fires first. */
function withinDeadline<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(timeoutError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(timeoutError());
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/** True for the error a deadline or an aborted fetch throws. */
export function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
}

function timeoutError(): Error {
  const error = new Error("timed out");
  error.name = "TimeoutError";
  return error;
}

/** `href` resolved against `base` when it is an http(s) URL, else undefined. */
export function safeUrl(href: string, base: string): string | undefined {
  try {
    const url = new URL(href, base);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** The charset of a content-type, utf-8 when absent or unknown to TextDecoder. */
export function charsetOf(contentType: string): string {
  const charset = /charset=["']?([\w-]+)/i.exec(contentType)?.[1] ?? "utf-8";
  try {
    new TextDecoder(charset);
    return charset;
  } catch {
    return "utf-8";
  }
}

const MB = 1024 * 1024;

/**
 * Bytes for a person.
 *
 * @example formatBytes(5 * 1024 * 1024) // "5 MB"
 */
export function formatBytes(bytes: number): string {
  if (bytes >= MB) return `${Math.round((bytes / MB) * 10) / 10} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} B`;
}

/**
 * Runs `work` over `items` with at most `concurrency` at once, keeping the order of the results.
 *
 * @example await withConcurrency(urls, 4, (url) => fetch(url))
 */
export async function withConcurrency<T, R>(items: readonly T[], concurrency: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await work(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}

/** A budget in seconds as a reader wants it: what is left of a 2 s deadline, 1,999 ms, reads "2". */
function seconds(ms: number): number {
  return Math.round(ms / 100) / 10;
}
