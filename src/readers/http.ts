// How the readers ask for something over HTTP: who they say they are, how
// long they wait, how much they take. fetch and Web Streams only.
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

/** The fetch a reader calls: the platform's by default, a Worker binding's or a test's otherwise. */
export type Fetcher = (input: Request | string | URL, init?: RequestInit) => Promise<Response>;

/**
 * GETs `url` with the reader's User-Agent, failing after `timeoutMs` (the
 * body's reading included: the signal stays armed until it is read).
 * Throws FetchProblem for a network failure, a timeout or a non-2xx status.
 */
export async function fetchWithin(url: string, timeoutMs: number, options: { fetch?: Fetcher; accept?: string; redirect?: "follow" | "manual" } = {}): Promise<Response> {
  const fetcher = options.fetch ?? fetch;
  let response: Response;
  try {
    response = await fetcher(url, {
      headers: { "user-agent": READER_USER_AGENT, accept: options.accept ?? "*/*" },
      redirect: options.redirect ?? "follow",
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
    throw new FetchProblem(timedOut ? `${url}: no answer within ${seconds(timeoutMs)} s` : `${url}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const redirectKept = options.redirect === "manual" && response.status >= 300 && response.status < 400;
  if (!response.ok && !redirectKept) {
    await response.body?.cancel().catch(() => undefined);
    throw new FetchProblem(`${url}: HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`);
  }
  return response;
}

/**
 * The body of `response` as text, refused past `maxBytes` (counted as it
 * arrives, so a page that never ends costs at most that much) or when it has
 * not finished `timeoutMs` after the call: the reader keeps its own clock
 * rather than trust every fetch to abort a body.
 */
export async function readTextWithin(url: string, response: Response, maxBytes: number, timeoutMs: number): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new FetchProblem(`${url}: ${declared} bytes, over the cap of ${maxBytes} bytes a page`);
  }
  if (!response.body) return "";
  const reader = response.body.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new FetchProblem(`${url}: the body did not finish within ${seconds(timeoutMs)} s`)), timeoutMs);
  });
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), late]);
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw new FetchProblem(`${url}: more than ${maxBytes} bytes, over the cap a page`);
      }
      parts.push(value);
    }
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    if (error instanceof FetchProblem) throw error;
    const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
    throw new FetchProblem(timedOut ? `${url}: the body did not finish in time` : `${url}: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    if (timer !== null) clearTimeout(timer);
  }
  return new TextDecoder("utf-8", { fatal: false, ignoreBOM: true }).decode(concatBytes(parts, total));
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
