// Which URLs a crawl will read, and in what order: in scope, allowed by
// robots.txt and the run's --include/--exclude, pages rather than files,
// each once.
import type { Robots } from "./robots.ts";
import { globMatcher, inScope, pageKey, type CrawlScope } from "./scope.ts";

/** Paths that are files, not pages: not fetched, reported. */
const NOT_A_PAGE = /\.(?:png|jpe?g|gif|svg|webp|ico|css|js|mjs|map|json|xml|txt|rst|md|pdf|zip|gz|tgz|bz2|xz|tar|epub|woff2?|ttf|eot|mp3|mp4|webm|wasm|inv|py|c|h)$/i;

/** The URLs still to read and every one considered so far. */
export class Frontier {
  readonly scope: CrawlScope;
  readonly queue: UrlQueue;
  readonly seen: Set<string>;
  private readonly robots: Robots;
  /** Where every URL turned away is said, with why. */
  private readonly skip: (skipped: { url: string; reason: string }) => void;
  private readonly includes: { glob: string; matches: (path: string) => boolean }[];
  private readonly excludes: { glob: string; matches: (path: string) => boolean }[];

  constructor(
    scope: CrawlScope,
    robots: Robots,
    globs: { include?: readonly string[]; exclude?: readonly string[] },
    skip: (skipped: { url: string; reason: string }) => void,
    carried: { queue?: readonly string[]; seen?: readonly string[] } = {},
  ) {
    this.scope = scope;
    this.robots = robots;
    this.skip = skip;
    this.includes = (globs.include ?? []).map((glob) => ({ glob, matches: globMatcher(glob) }));
    this.excludes = (globs.exclude ?? []).map((glob) => ({ glob, matches: globMatcher(glob) }));
    this.queue = new UrlQueue(carried.queue ?? []);
    this.seen = new Set(carried.seen);
  }

  /** Why a URL in scope is not fetched, or null when it may be. */
  refusal(url: string): string | null {
    const path = new URL(url).pathname;
    if (!this.robots.allows(path)) return "disallowed by robots.txt";
    const excluded = this.excludes.find((exclude) => exclude.matches(path));
    if (excluded) return `excluded by --exclude ${excluded.glob}`;
    if (this.includes.length > 0 && !this.includes.some((include) => include.matches(path))) return `not matched by --include ${this.includes.map((include) => include.glob).join(" ")}`;
    const extension = NOT_A_PAGE.exec(path);
    if (extension) return `not a page (${extension[0]})`;
    return null;
  }

  /** Queues `url` unless it was seen or is refused; an out-of-scope URL is said only when `reportOutOfScope` (a sitemap's, not a page's link). */
  add(url: string, reportOutOfScope: boolean): void {
    let key: string;
    try {
      key = pageKey(url);
    } catch {
      return;
    }
    if (this.seen.has(key)) return;
    this.seen.add(key);
    if (!inScope(this.scope, key)) {
      if (reportOutOfScope) this.skip({ url: key, reason: `outside ${this.scope.origin}${this.scope.prefix}` });
      return;
    }
    const why = this.refusal(key);
    if (why) this.skip({ url: key, reason: why });
    else this.queue.push(key);
  }
}

/**
 * Page keys to fetch, first in first out. Taking one moves an index:
 * Array#shift copies the whole array once it is large (a sitemap index may
 * queue 200,000 URLs), so a crawl of it would be quadratic.
 */
class UrlQueue {
  private keys: string[];
  private head = 0;

  constructor(keys: readonly string[]) {
    this.keys = [...keys];
  }

  get size(): number {
    return this.keys.length - this.head;
  }

  /** The key taken next, without taking it. */
  next(): string | undefined {
    return this.keys[this.head];
  }

  take(): string | undefined {
    const key = this.keys[this.head];
    if (key === undefined) return undefined;
    this.head += 1;
    // Drop the taken keys once they are half the array: amortised O(1) a key.
    if (this.head > 1024 && this.head * 2 > this.keys.length) {
      this.keys = this.keys.slice(this.head);
      this.head = 0;
    }
    return key;
  }

  push(key: string): void {
    this.keys.push(key);
  }

  /** Every key still queued, in order, leaving the queue empty. */
  takeAll(): string[] {
    const rest = this.toArray();
    this.keys = [];
    this.head = 0;
    return rest;
  }

  toArray(): string[] {
    return this.keys.slice(this.head);
  }
}
