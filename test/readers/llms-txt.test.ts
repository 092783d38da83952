// The llms.txt reader inside workerd, against a small documentation host
// answered by a Request → Response handler (what a Worker's service binding is).
import { describe, expect, it } from "vitest";
import packageJson from "../../package.json";
import { prepareSite, siteFor } from "../../src/documents/ingest/prepare-pages.ts";
import { ALMANAC_VERSION, READER_USER_AGENT, type Fetcher } from "../../src/readers/http.ts";
import { DEFAULT_LLMS_LIMITS, LlmsRefused, parseLlmsTxt, readLlmsPages } from "../../src/readers/llms-txt.ts";

const LLMS_TXT = `# Widgets

> Widgets are configurable gadgets. This file lists their documentation.

Some words about the project.

## Docs

- [Quick start](/docs/start.md): install and run
- [Guide](https://docs.test/docs/guide/index.md)
- [Again](/docs/start.md)
- [Elsewhere](https://other.test/page.md): off-origin

\`\`\`
- [Not a link](/in/code.md)
\`\`\`

## Reference

* [API](api.md "the API")
- [Moved](/docs/moved.md)
- [Away](/docs/away.md)
- [HTML](/docs/page.html)
- [Missing](/docs/missing.md)

## Optional

- [History](/docs/history.md)
`;

/** A documentation host: its llms.txt, Markdown pages, a redirect within and one out, an HTML page, a 404. */
function host(seen: Request[] = []): Fetcher {
  return async (input, init) => {
    const request = new Request(input, init);
    seen.push(request);
    const { pathname } = new URL(request.url);
    const markdown = (text: string) => new Response(text, { headers: { "content-type": "text/markdown; charset=utf-8" } });
    switch (pathname) {
      case "/llms.txt":
        return new Response(LLMS_TXT, { headers: { "content-type": "text/plain" } });
      case "/docs/start.md":
        return markdown("# Quick start\n\nRun `widget init`.");
      case "/docs/guide/index.md":
        return markdown("---\ntitle: The guide\n---\nConfigure widgets.");
      case "/api.md":
        return markdown("# API\n\n## frob()\n\nFrobnicates.");
      case "/docs/moved.md":
        return new Response(null, { status: 301, headers: { location: "/docs/moved-here.md" } });
      case "/docs/moved-here.md":
        return markdown("# Moved\n\nNow here.");
      case "/docs/away.md":
        return new Response(null, { status: 302, headers: { location: "https://evil.test/away.md" } });
      case "/docs/page.html":
        return new Response("<!doctype html><p>hi</p>", { headers: { "content-type": "text/html" } });
      case "/docs/history.md":
        return markdown("# History\n\nOld times.");
      case "/llms-full.txt":
        return markdown(FULL);
      default:
        return new Response("not found", { status: 404 });
    }
  };
}

const FULL = `# Widgets

> Everything in one file.

# Quick start
Source: https://docs.test/docs/start.md

Run \`widget init\`.

\`\`\`sh
# not a heading
\`\`\`

# Configuration

Set the frob level.

## Levels

One to ten.

# Configuration

A second section of the same name.

# Elsewhere
Source: https://other.test/x.md

Kept, named under the file.
`;

describe("parsing an llms.txt", () => {
  it("takes the H1, the blockquote and the links of each H2 section, ignoring code", () => {
    const parsed = parseLlmsTxt(LLMS_TXT, "https://docs.test/llms.txt");
    expect(parsed.title).toBe("Widgets");
    expect(parsed.summary).toBe("Widgets are configurable gadgets. This file lists their documentation.");
    expect(parsed.links.map((link) => [link.section, link.title, link.url])).toEqual([
      ["Docs", "Quick start", "https://docs.test/docs/start.md"],
      ["Docs", "Guide", "https://docs.test/docs/guide/index.md"],
      ["Docs", "Again", "https://docs.test/docs/start.md"],
      ["Docs", "Elsewhere", "https://other.test/page.md"],
      ["Reference", "API", "https://docs.test/api.md"],
      ["Reference", "Moved", "https://docs.test/docs/moved.md"],
      ["Reference", "Away", "https://docs.test/docs/away.md"],
      ["Reference", "HTML", "https://docs.test/docs/page.html"],
      ["Reference", "Missing", "https://docs.test/docs/missing.md"],
      ["Optional", "History", "https://docs.test/docs/history.md"],
    ]);
    expect(parsed.links[0]?.notes).toBe("install and run");
  });
});

describe("reading an llms.txt", () => {
  it("fetches its pages on its origin only, as Markdown, and says why each other link was skipped", async () => {
    const seen: Request[] = [];
    const read = await readLlmsPages("https://docs.test/llms.txt", { fetch: host(seen) });
    expect(read.kind).toBe("llms.txt");
    expect(read.pages.map((page) => [page.path, page.url])).toEqual([
      ["docs/start.md", "https://docs.test/docs/start.md"],
      ["docs/guide/index.md", "https://docs.test/docs/guide/index.md"],
      ["api.md", "https://docs.test/api.md"],
      ["docs/moved.md", "https://docs.test/docs/moved.md"],
      ["docs/history.md", "https://docs.test/docs/history.md"],
    ]);
    expect(read.skipped).toEqual(
      expect.arrayContaining([
        { path: "https://other.test/page.md", reason: "on another origin; only https://docs.test is read" },
        { path: "https://docs.test/docs/away.md", reason: expect.stringContaining("redirects to another origin (https://evil.test)") },
        { path: "https://docs.test/docs/page.html", reason: expect.stringContaining("an HTML page, not Markdown") },
        { path: "https://docs.test/docs/missing.md", reason: "HTTP 404" },
      ]),
    );
    expect(read.skipped).toHaveLength(4);
    // Nothing off the origin was ever asked for, and every request names Almanac and its version.
    expect(seen.every((request) => new URL(request.url).origin === "https://docs.test")).toBe(true);
    expect(new Set(seen.map((request) => request.headers.get("user-agent")))).toEqual(new Set([READER_USER_AGENT]));
    expect(READER_USER_AGENT).toContain(`Almanac/${packageJson.version}`);
    expect(ALMANAC_VERSION).toBe(packageJson.version);

    const { documents } = await prepareSite(read.pages, siteFor("https://docs.test"));
    expect(documents.map((doc) => [doc.name, doc.title])).toEqual([
      ["documents/docs.test/docs/start", "Quick start"],
      ["documents/docs.test/docs/guide", "The guide"],
      ["documents/docs.test/api", "API"],
      ["documents/docs.test/docs/moved", "Moved"],
      ["documents/docs.test/docs/history", "History"],
    ]);
  });

  it("leaves out the Optional section with --skip-optional", async () => {
    const read = await readLlmsPages("https://docs.test/llms.txt", { fetch: host(), skipOptional: true });
    expect(read.pages.map((page) => page.path)).not.toContain("docs/history.md");
    expect(read.skipped).toContainEqual({ path: "https://docs.test/docs/history.md", reason: "in the Optional section (--skip-optional)" });
  });

  it("fetches at most maxPages pages and says so", async () => {
    const read = await readLlmsPages("https://docs.test/llms.txt", { fetch: host(), limits: { ...DEFAULT_LLMS_LIMITS, maxPages: 2 } });
    expect(read.pages).toHaveLength(2);
    expect(read.capped).toEqual(["6 links past the cap of 2 pages were not fetched"]);
  });

  it("refuses a page over the page cap, and a page that never finishes, without holding the run", async () => {
    const endless: Fetcher = async (input) => {
      const { pathname } = new URL(new Request(input).url);
      if (pathname === "/llms.txt") return new Response("# X\n## Docs\n- [Big](/big.md)\n- [Slow](/slow.md)\n- [Ok](/ok.md)\n");
      if (pathname === "/ok.md") return new Response("# Ok");
      // /big.md sends 100 KiB at once; /slow.md a kilobyte every 50 ms, for ever.
      const big = pathname === "/big.md";
      const chunk = new TextEncoder().encode("x".repeat(big ? 100 * 1024 : 1024));
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (!big) await new Promise((resolve) => setTimeout(resolve, 50));
          controller.enqueue(chunk);
        },
      });
      return new Response(body, { headers: { "content-type": "text/markdown" } });
    };
    const limits = { ...DEFAULT_LLMS_LIMITS, maxPageBytes: 64 * 1024, timeoutMs: 2_000 };
    const read = await readLlmsPages("https://docs.test/llms.txt", { fetch: endless, limits });
    expect(read.pages.map((page) => page.path)).toEqual(["ok.md"]);
    expect(new Map(read.skipped.map((page) => [page.path, page.reason]))).toEqual(
      new Map([
        ["https://docs.test/big.md", "more than 65536 bytes, over the cap a page"],
        ["https://docs.test/slow.md", "the body did not finish within 2 s"],
      ]),
    );
  });

  it("says what is wrong with an llms.txt it cannot use", async () => {
    await expect(readLlmsPages("https://docs.test/nothing.txt", { fetch: host() })).rejects.toThrow("could not read https://docs.test/nothing.txt: https://docs.test/nothing.txt: HTTP 404");
    const empty: Fetcher = async () => new Response("# Title\n\nJust prose.");
    await expect(readLlmsPages("https://docs.test/llms.txt", { fetch: empty })).rejects.toThrow(LlmsRefused);
    await expect(readLlmsPages("docs.test/llms.txt")).rejects.toThrow("is not a URL");
  });
});

/** A host that answers every request with this Markdown. */
const serving = (text: string): Fetcher => async () => new Response(text, { headers: { "content-type": "text/markdown" } });

describe("reading an llms-full.txt", () => {
  it("splits it at its top headings, each page named by its Source on the origin or under the file", async () => {
    const read = await readLlmsPages("https://docs.test/llms-full.txt", { fetch: host() });
    expect(read.kind).toBe("llms-full.txt");
    expect(read.title).toBe("Widgets");
    expect(read.summary).toBe("Everything in one file.");
    expect(read.pages.map((page) => [page.path, page.url])).toEqual([
      ["docs/start.md", "https://docs.test/docs/start.md"],
      ["llms-full/configuration", "https://docs.test/llms-full/configuration"],
      ["llms-full/configuration-2", "https://docs.test/llms-full/configuration-2"],
      ["llms-full/elsewhere", "https://docs.test/llms-full/elsewhere"],
    ]);
    expect(read.skipped).toEqual([{ path: "Elsewhere (https://other.test/x.md)", reason: "its Source is on another origin; kept under llms-full/ instead" }]);
    const { documents } = await prepareSite(read.pages, siteFor("https://docs.test"));
    expect(documents.map((doc) => [doc.name, doc.title])).toEqual([
      ["documents/docs.test/docs/start", "Quick start"],
      ["documents/docs.test/llms-full/configuration", "Configuration"],
      ["documents/docs.test/llms-full/configuration-2", "Configuration"],
      ["documents/docs.test/llms-full/elsewhere", "Elsewhere"],
    ]);
    expect(documents[0]?.content).toBe("# Quick start\n\nRun `widget init`.\n\n```sh\n# not a heading\n```");
    expect(documents[1]?.content).toBe("# Configuration\n\nSet the frob level.\n\n## Levels\n\nOne to ten.");
  });

  it("names 12,000 sections of one heading in one pass (issue 39, row 6: 48 KB took 141 s)", async () => {
    const read = await readLlmsPages("https://docs.test/llms-full.txt", { fetch: serving("# Setup\n".repeat(12_000)), limits: { ...DEFAULT_LLMS_LIMITS, maxPages: 20_000 } });
    const paths = read.pages.map((page) => page.path);
    expect(paths.slice(0, 3)).toEqual(["llms-full/setup", "llms-full/setup-2", "llms-full/setup-3"]);
    expect(paths.at(-1)).toBe("llms-full/setup-12000");
    expect(new Set(paths).size).toBe(12_000);
  });

  it("splits at most 2,000 pages, as the docs promise, and says how many sections it left (200,000 were stored)", async () => {
    const read = await readLlmsPages("https://docs.test/llms-full.txt", { fetch: serving(Array.from({ length: 200_000 }, (_, index) => `# P${index}\n`).join("")) });
    expect(read.pages).toHaveLength(2_000);
    expect(read.pages.at(-1)?.path).toBe("llms-full/p1999");
    expect(read.capped).toEqual(["198000 sections past the cap of 2000 pages were not read"]);
  });
});

describe("names from hostile links (issue 39, row 11)", () => {
  it("keeps a link's encoded %2F..%2F one segment, and a ...md file under its folder: no name climbs out", async () => {
    const fetcher: Fetcher = async (input) => {
      const { pathname } = new URL(new Request(input).url);
      if (pathname === "/docs/llms.txt") return new Response("# X\n## Docs\n- [Up](/docs/%2F..%2F..%2Fadmin.md)\n- [Dots](/docs/guide/...md)\n- [Back](/docs/a/%5C..%5Cb.md)\n");
      return new Response(`# Page at ${pathname}`, { headers: { "content-type": "text/markdown" } });
    };
    const read = await readLlmsPages("https://docs.test/docs/llms.txt", { fetch: fetcher });
    expect(read.pages.map((page) => page.path)).toEqual(["docs/%2F..%2F..%2Fadmin.md", "docs/guide/...md", "docs/a/%5C..%5Cb.md"]);
    const { documents } = await prepareSite(read.pages, siteFor("https://docs.test"));
    expect(documents.map((doc) => doc.name)).toEqual([
      "documents/docs.test/docs/%252F..%252F..%252Fadmin",
      "documents/docs.test/docs/guide",
      "documents/docs.test/docs/a/%255C..%255Cb",
    ]);
    for (const doc of documents) expect(new URL(doc.uri).pathname.startsWith("/docs/"), doc.uri).toBe(true);
  });
});

describe("what the llms reader never stores (issue 39, row 10)", () => {
  it("refuses a binary page (NUL bytes) and strips ESC and other control characters from the rest", async () => {
    const fetcher: Fetcher = async (input) => {
      const { pathname } = new URL(new Request(input).url);
      if (pathname === "/llms.txt") return new Response("# X\n## Docs\n- [Binary](/bin.md)\n- [Colour](/colour.md)\n");
      if (pathname === "/bin.md") return new Response(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00]), { headers: { "content-type": "application/octet-stream" } });
      return new Response("# Colour\u001b[31m red\u001b[0m\n\nBell\u0007 and tab\there.\r\n", { headers: { "content-type": "text/markdown" } });
    };
    const read = await readLlmsPages("https://docs.test/llms.txt", { fetch: fetcher });
    expect(read.skipped).toEqual([{ path: "https://docs.test/bin.md", reason: "binary (it holds NUL bytes), not Markdown" }]);
    expect(read.pages.map((page) => page.text)).toEqual(["# Colour[31m red[0m\n\nBell and tab\there.\r\n"]);
  });

  it("refuses an llms-full.txt holding NUL bytes, and keeps control characters out of its titles", async () => {
    await expect(readLlmsPages("https://docs.test/llms-full.txt", { fetch: serving("# A\n\u0000\n# B\n") })).rejects.toThrow("binary (it holds NUL bytes), not Markdown");
    const read = await readLlmsPages("https://docs.test/llms-full.txt", { fetch: serving("# Sa\u001bfe\n\ntext\n# Two\n") });
    const { documents } = await prepareSite(read.pages, siteFor("https://docs.test"));
    expect(documents.map((doc) => doc.title)).toEqual(["Safe", "Two"]);
  });

  it("keeps control characters out of every reader's pages: prepareDocument drops them", async () => {
    const { documents } = await prepareSite([{ path: "page.md", text: "# Page\n\nNUL\u0000 ESC\u001b[2J BEL\u0007 C1\u009b end\ttab\n" }], siteFor("https://docs.test"));
    expect(documents[0]?.content).toBe("# Page\n\nNUL ESC[2J BEL C1 end\ttab");
  });
});
