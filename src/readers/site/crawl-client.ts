// The crawl's side of HTTP: every request and byte of a run counted against
// its caps, on top of the readers' one HTTP helper.
import { BodyRefused, isTimeout, readBody, request } from "../http.ts";

/** Thrown inside the crawl when the run's byte cap is reached: it ends the run, not one page. */
export class RunCapReached extends Error {}

/** Requests of one crawl run: its User-Agent and deadline on each, its totals carried across calls. */
export class CrawlClient {
  private readonly options: { fetch: typeof fetch; userAgent: string; timeoutMs: number; maxRunBytes: number };
  /** Requests made so far in the whole crawl. */
  requests: number;
  /** Bytes read so far in the whole crawl (pages, sitemaps, robots.txt). */
  bytes: number;

  constructor(options: CrawlClient["options"], requests = 0, bytes = 0) {
    this.options = options;
    this.requests = requests;
    this.bytes = bytes;
  }

  /** One request; redirects come back to the caller, which follows only those it may. */
  get(url: string, headers: Record<string, string> = {}): Promise<Response> {
    this.requests += 1;
    const { fetch, userAgent, timeoutMs } = this.options;
    return request(url, { fetch, userAgent, timeoutMs, headers, redirect: "manual" });
  }

  /** A body within `maxBytes` (BodyRefused past it, or the first `maxBytes` and `cut` with `keepFirst`), counted against the run's cap. */
  body(response: Response, maxBytes: number, what: string, keepFirst = false): Promise<{ bytes: Uint8Array; cut: boolean }> {
    return readBody(response, {
      maxBytes,
      what,
      keepFirst,
      onBytes: (bytes) => {
        this.bytes += bytes;
        if (this.bytes > this.options.maxRunBytes) throw new RunCapReached();
      },
    });
  }

  /** Why a request failed, in words a person can act on: a timeout names the cap. */
  failure(error: unknown): string {
    if (error instanceof BodyRefused) return error.message;
    if (isTimeout(error)) return `timed out after ${this.options.timeoutMs / 1000} s`;
    const message = error instanceof Error ? error.message : String(error);
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : "";
    return `could not be fetched (${message}${cause})`;
  }
}
