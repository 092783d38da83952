// A documentation site for the crawler's tests inside workerd, built by the test:
// a fetch function answering real Response objects (Workers cannot open a server to crawl).

/** The User-Agent the crawler's tests send. */
export const UA = "Almanac/0.0.0-test (documentation crawler)";

export interface Page {
  body: string | (() => Response);
  type?: string;
  etag?: string;
}

/** A site as a fetch function: paths to pages, with ETags honoured; every request recorded. */
export function site(origin: string, pages: Record<string, Page>) {
  const requests: { url: string; headers: Headers }[] = [];
  const fetcher = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers = new Headers(init?.headers);
    requests.push({ url: url.href, headers });
    if (url.origin !== origin) throw new TypeError(`fetch failed: ${url.origin} is not this site`);
    const page = pages[url.pathname];
    if (!page) return new Response("not found", { status: 404 });
    if (typeof page.body === "function") return page.body();
    if (page.etag && headers.get("if-none-match") === page.etag) return new Response(null, { status: 304, headers: { etag: page.etag } });
    return new Response(page.body, { headers: { "content-type": page.type ?? "text/html; charset=utf-8", ...(page.etag ? { etag: page.etag } : {}) } });
  }) as typeof fetch;
  return { fetch: fetcher, requests };
}

/** A page with the navigation every test site shares (a link to /docs/) and `body` in its <main>. */
export const html = (title: string, body: string) => `<html><head><title>${title}</title></head><body><nav><a href="/docs/">Home</a></nav><main><h1>${title}</h1>${body}</main></body></html>`;
