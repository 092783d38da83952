// The landing page as a person uses it: headless Chromium (Debian's, driven
// by playwright-core) against the real dev server, with JavaScript at desktop
// and phone widths, and without JavaScript at all. It reads what is on the
// screen: figures, results, the answer's citations, rendered SQL, validation
// errors, the spent-quota message, and what each copy button copied.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, type BrowserContext, type Page, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

const serverUrl = inject("serverUrl");
/** .ci/run installs Debian's chromium; elsewhere set CHROMIUM_PATH. */
const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const hasChromium = existsSync(chromiumPath);
if (!hasChromium) {
  console.error(
    `\n${"!".repeat(78)}\n!! NO CHROMIUM at ${chromiumPath}: the landing page's browser tests are SKIPPED.\n` +
      `!! Install it (apt-get install chromium) or set CHROMIUM_PATH. The plain-HTML tests (test/web) still run.\n${"!".repeat(78)}\n`,
  );
}

/** Where the screenshots go; LANDING_SHOTS_DIR also gets a copy of each. */
const shotsDir = mkdtempSync(join(tmpdir(), "almanac-landing-"));
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
const QUESTION = "How is the answer_query quota counted?";
const INTENT = "list repositories in a github organization";

/** Keys made for this file before the files ran (global-setup.ts SHARED_KEYS), by label. */
const keys = inject("sharedKeys");

async function screenshot(page: Page, name: string): Promise<void> {
  const path = join(shotsDir, name);
  await page.screenshot({ path, fullPage: true });
  const copyTo = process.env.LANDING_SHOTS_DIR;
  if (copyTo) {
    mkdirSync(copyTo, { recursive: true });
    copyFileSync(path, join(copyTo, name));
  }
  console.log(`landing page screenshot: ${path}`);
}

/**
 * Console errors a page logs. Chromium reports every 4xx answer to a fetch
 * or navigation as "Failed to load resource"; the one such answer the tests
 * provoke on purpose, the spent quota's 429 from /try/ask, is expected.
 */
function watchConsole(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() !== "error") return;
    const expected429 = message.text().includes("status of 429") && new URL(message.location().url).pathname === "/try/ask";
    if (!expected429) errors.push(`${message.text()} (${message.location().url})`);
  });
  page.on("pageerror", (error) => errors.push(String(error)));
  return errors;
}

let browser: Browser;

beforeAll(async () => {
  if (!hasChromium) return;
  browser = await chromium.launch({
    executablePath: chromiumPath,
    // No sandbox as root in CI; no background traffic on a machine without internet.
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
});

afterAll(async () => {
  await browser?.close();
  if (hasChromium) console.log(`landing page screenshots are in ${shotsDir}`);
});

async function newContext(options: { viewport: { width: number; height: number }; dark?: boolean; javaScript?: boolean }): Promise<BrowserContext> {
  const context = await browser.newContext({
    viewport: options.viewport,
    colorScheme: options.dark ? "dark" : "light",
    javaScriptEnabled: options.javaScript ?? true,
    isMobile: options.viewport.width < 600,
    hasTouch: options.viewport.width < 600,
  });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: serverUrl });
  return context;
}

// page.evaluate runs its callback in the browser, whose globals this Node program's types do not have.
declare const document: { documentElement: { scrollWidth: number } };
const clipboard = (page: Page) => page.evaluate(() => (navigator as unknown as { clipboard: { readText(): Promise<string> } }).clipboard.readText());

/** Search, ask and render one query: what a first visit does. */
async function tryEveryPanel(page: Page, key: string): Promise<void> {
  await page.locator("#search-query").fill("rotate an API key");
  await page.locator("#search-query").press("Enter");
  await expect.poll(() => page.locator("#search h4").textContent()).toBe("Results 1–5 for “rotate an API key”");

  await page.locator("#api-key").fill(key);
  await page.locator("#ask-query").fill(QUESTION);
  await page.getByRole("button", { name: "Ask", exact: true }).click();
  await expect.poll(() => page.locator("#ask h4").first().textContent()).toBe("Answer");

  await page.locator("#library-intent").fill(INTENT);
  await page.getByRole("button", { name: "Find queries" }).click();
  await page.getByRole("link", { name: "Repositories of a GitHub organization" }).click();
  await expect.poll(() => page.locator("#entry-title").textContent()).toBe("Repositories of a GitHub organization");
  await page.locator("#param-org").fill("stackql");
  await page.getByRole("button", { name: "Render SQL" }).click();
  await expect.poll(() => page.locator("#rendered-sql").textContent()).toContain("WHERE org = 'stackql'");
}

describe.skipIf(!hasChromium)(hasChromium ? "the landing page in Chromium" : `the landing page in Chromium (SKIPPED: no Chromium at ${chromiumPath})`, () => {
  it("shows a desktop visitor what is here, copies every client's snippet, and serves every panel in place", async () => {
    const context = await newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    const errors = watchConsole(page);
    await page.goto(serverUrl);
    await expect(page.title()).resolves.toBe("Almanac MCP server");

    // What is here: the same figures the server reports elsewhere.
    const { documents } = (await (await fetch(`${serverUrl}/healthz`)).json()) as { documents: number };
    await expect(page.locator(".up").textContent()).resolves.toBe(`Up: serving ${documents} pages.`);
    await expect(page.getByRole("rowheader", { name: "almanac.dev" }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole("rowheader", { name: "github" }).isVisible()).resolves.toBe(true);
    await expect(page.locator("#mcp-url").textContent()).resolves.toBe(`${serverUrl}/mcp`);
    await expect(page.locator("#rest-url").textContent()).resolves.toBe(`${serverUrl}/v1`);
    await expect(page.locator("#here").textContent()).resolves.toContain("2026-07-28 (stateless) and 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05 (sessions)");
    await expect(page.locator("#allowance p").first().textContent()).resolves.toMatch(/^Anonymous \(public tier\)/);

    // Connect: every copy button copies exactly its snippet, with this server's URL in it.
    for (const [index, details] of (await page.locator("details.client").all()).entries()) {
      const wasOpen = (await details.getAttribute("open")) !== null;
      expect(wasOpen).toBe(index === 0);
      if (!wasOpen) await details.locator("summary").click();
      for (const button of await details.locator("button[data-copy]").all()) {
        const snippet = await page.locator(`#${await button.getAttribute("data-copy")}`).textContent();
        await button.click();
        await expect.poll(() => clipboard(page)).toBe(snippet);
        await expect(button.textContent()).resolves.toBe("Copied");
      }
      await expect(details.locator("pre").first().textContent()).resolves.toContain(`${serverUrl}/mcp`);
      // Keyboard: the summary toggles with Enter, like any disclosure.
      if (!wasOpen) {
        await details.locator("summary").press("Enter");
        await expect(details.getAttribute("open")).resolves.toBeNull();
      }
    }
    await page.getByRole("button", { name: "Copy the MCP URL" }).click();
    await expect.poll(() => clipboard(page)).toBe(`${serverUrl}/mcp`);

    // Search: ranked hits with a section link and marked words; paging forward and back.
    await page.locator("#search-query").fill("rotate an API key");
    await page.locator("#search-query").press("Enter");
    await expect.poll(() => page.locator("#search h4").textContent()).toBe("Results 1–5 for “rotate an API key”");
    expect(page.url()).toBe(`${serverUrl}/try/search?query=rotate+an+API+key#search`);
    // The hits are search_documents' own, in its order: the REST facade over the same function agrees.
    const rest = (await (await fetch(`${serverUrl}/v1/documents:searchDocumentChunks?query=rotate+an+API+key`)).json()) as { results: { parent: string }[] };
    await expect(page.locator("#search .parent").allTextContents()).resolves.toEqual(rest.results.map((hit) => hit.parent));
    await expect(page.locator("#search .section a").first().getAttribute("href")).resolves.toMatch(/^https:\/\/almanac\.dev\/docs\/[\w/-]+#[\w-]+$/);
    expect(await page.locator("#search .snippet mark").count()).toBeGreaterThan(2);
    await page.getByRole("link", { name: "Next results" }).click();
    await expect.poll(() => page.locator("#search h4").textContent()).toBe("Results 6–10 for “rotate an API key”");
    await page.goBack();
    await expect.poll(() => page.locator("#search h4").textContent()).toBe("Results 1–5 for “rotate an API key”");

    // Ask, with a key: the answer's markers link to its references, and the allowance box follows.
    const key = keys["landing-desktop"];
    await page.locator("#api-key").fill(key);
    await page.getByRole("button", { name: "Show this key's allowance" }).click();
    await expect.poll(() => page.locator("#allowance p").first().textContent()).toMatch(/^API key "landing-desktop"/);
    await page.locator("#ask-query").fill(QUESTION);
    await page.getByRole("button", { name: "Ask", exact: true }).click();
    await expect.poll(() => page.locator("#ask h4").first().textContent()).toBe("Answer");
    const markers = page.locator("#ask .answer sup a");
    expect(await markers.count()).toBeGreaterThan(0);
    await expect(markers.first().textContent()).resolves.toBe("[1]");
    await markers.first().click();
    expect(new URL(page.url()).hash).toBe("#ref-1");
    await expect(page.locator("#ref-1 a").getAttribute("href")).resolves.toMatch(/^https:\/\/almanac\.dev\/docs\/.+/);
    await expect(page.locator("#ref-1 code").textContent()).resolves.toMatch(/^documents\/almanac\.dev\/docs\//);
    await expect(page.locator('#allowance tr[data-window="day"] td').first().textContent()).resolves.toBe("4");
    expect(await page.locator("#api-key").inputValue()).toBe(key);

    // Query library: find, open, a validation error beside the field, then valid SQL to copy.
    await page.locator("#library-intent").fill(INTENT);
    await page.getByRole("button", { name: "Find queries" }).click();
    await page.getByRole("link", { name: "Repositories of a GitHub organization" }).click();
    await expect.poll(() => page.locator("#entry-title").textContent()).toBe("Repositories of a GitHub organization");
    await page.getByRole("button", { name: "Render SQL" }).click();
    await expect.poll(() => page.locator("#param-org-error").textContent()).toBe("Required: enter a value.");
    await expect(page.locator("#library .render-errors").textContent()).resolves.toBe("missing required params: org");
    await page.locator("#param-org").fill("not an org!");
    await page.getByRole("button", { name: "Render SQL" }).click();
    await expect.poll(() => page.locator("#param-org-error").textContent()).toMatch(/^param "org" must be an identifier/);
    await page.locator("#param-org").fill("stackql");
    await page.getByRole("button", { name: "Render SQL" }).click();
    await expect.poll(() => page.locator("#rendered-sql").textContent()).toContain("WHERE org = 'stackql'");
    await page.getByRole("button", { name: "Copy the rendered SQL" }).click();
    await expect.poll(() => clipboard(page)).toBe(await page.locator("#rendered-sql").textContent());
    // The other panels kept their results while this one changed.
    await expect(page.locator("#search h4").textContent()).resolves.toBe("Results 1–5 for “rotate an API key”");
    await expect(page.locator("#ask h4").first().textContent()).resolves.toBe("Answer");

    await page.locator("#try").scrollIntoViewIfNeeded();
    await screenshot(page, "desktop.png");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("tells a visitor whose quota is spent why, when it resets, and offers the free search instead", async () => {
    const context = await newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    const errors = watchConsole(page);
    await page.goto(serverUrl);
    await page.locator("#api-key").fill(keys["landing-spent"]);
    await page.locator("#ask-query").fill(QUESTION);
    await page.getByRole("button", { name: "Ask", exact: true }).click();
    await expect.poll(() => page.locator("#ask h4").first().textContent()).toBe("Answer");
    const refused = page.waitForResponse((response) => response.url().endsWith("/try/ask"));
    await page.getByRole("button", { name: "Ask", exact: true }).click();
    expect((await refused).status()).toBe(429);
    await expect.poll(() => page.locator("#ask .error strong").textContent()).toBe("Your answer_query quota is spent");
    await expect(page.locator("#ask .error p").first().textContent()).resolves.toMatch(
      /^answer_query quota exhausted: this API key \("landing-spent"\) may make 1 call per UTC day and has none left; the daily limit resets in .+\. Use search_documents instead/,
    );
    await expect(page.locator('#allowance tr[data-window="day"] td').first().textContent()).resolves.toBe("0");
    await page.locator("#ask").screenshot({ path: join(shotsDir, "ask-spent.png") });
    await page.getByRole("link", { name: `search the documentation for “${QUESTION}”` }).click();
    await expect.poll(() => page.locator("#search h4").textContent()).toMatch(/^Results 1–\d+ for “How is the answer_query quota counted\?”$/);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("works on a phone in dark mode", async () => {
    const context = await newContext({ viewport: PHONE, dark: true });
    const page = await context.newPage();
    const errors = watchConsole(page);
    await page.goto(serverUrl);
    // Nothing is wider than the screen except inside its own scrolling box.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await tryEveryPanel(page, keys["landing-phone"]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await screenshot(page, "phone.png");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("works as plain HTML forms without JavaScript: search, ask until the quota is spent, render a query", async () => {
    const context = await newContext({ viewport: PHONE, javaScript: false });
    const page = await context.newPage();
    const errors = watchConsole(page);
    await page.goto(serverUrl);
    await expect(page.locator("button[data-copy]").first().isVisible()).resolves.toBe(false);

    await page.locator("#search-query").fill("connect Cursor");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.waitForURL(/\/try\/search\?query=connect\+Cursor#search$/);
    await expect(page.locator("#search h5").first().textContent()).resolves.toBe("Connecting Cursor to Almanac");

    const key = keys["landing-no-js"];
    await page.locator("#api-key").fill(key);
    await page.locator("#ask-query").fill(QUESTION);
    const answered = page.waitForResponse((response) => response.url().endsWith("/try/ask"));
    await page.getByRole("button", { name: "Ask", exact: true }).click();
    expect((await answered).status()).toBe(200);
    await expect(page.locator("#ask h4").first().textContent()).resolves.toBe("Answer");
    expect(await page.locator("#ask .answer sup a").count()).toBeGreaterThan(0);
    // The key is not written back: it has to be typed again.
    expect(await page.locator("#api-key").inputValue()).toBe("");
    await page.locator("#api-key").fill(key);
    const refused = page.waitForResponse((response) => response.url().endsWith("/try/ask"));
    await page.getByRole("button", { name: "Ask", exact: true }).click();
    expect((await refused).status()).toBe(429);
    await expect(page.locator("#ask .error strong").textContent()).resolves.toBe("Your answer_query quota is spent");

    await page.locator("#library-intent").fill(INTENT);
    await page.getByRole("button", { name: "Find queries" }).click();
    await page.getByRole("link", { name: "Repositories of a GitHub organization" }).click();
    await page.getByRole("button", { name: "Render SQL" }).click();
    await expect(page.locator("#param-org-error").textContent()).resolves.toBe("Required: enter a value.");
    await page.locator("#param-org").fill("stackql");
    await page.getByRole("button", { name: "Render SQL" }).click();
    await expect(page.locator("#rendered-sql").textContent()).resolves.toContain("WHERE org = 'stackql'");
    await screenshot(page, "phone-no-js.png");
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe("the landing page over plain HTTP", () => {
  it("is served with this server's URL, its own assets only, and no caching", async () => {
    const response = await fetch(serverUrl);
    const html = await response.text();
    expect(response.status).toBe(200);
    expect(html).toContain(`<pre id="mcp-url" data-language="text">${serverUrl}/mcp</pre>`);
    expect(response.headers.get("content-security-policy")).toMatch(/^default-src 'none'; script-src 'sha256-/);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)="https?:/);
  });

  it("refuses a cross-site form post to the ask panel before charging anything", async () => {
    const response = await fetch(`${serverUrl}/try/ask`, {
      method: "POST",
      headers: { Origin: "https://evil.example", "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ query: QUESTION }),
    });
    expect(response.status).toBe(403);
    expect(await response.text()).toContain("a page on https://evil.example may not use this server&#39;s forms");
  });
});
