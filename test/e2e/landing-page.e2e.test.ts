// What a person sees opening the server in a browser: headless Chromium
// (Debian's, driven by playwright-core) against the real dev server.
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { describe, expect, inject, it } from "vitest";

const serverUrl = inject("serverUrl");
/** .ci/run installs Debian's chromium; elsewhere set CHROMIUM_PATH or install it to run this test. */
const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

describe.skipIf(!existsSync(chromiumPath))("the landing page in a browser", () => {
  it("shows that the server is up, how many documents it serves and how to connect", async () => {
    const browser = await chromium.launch({
      executablePath: chromiumPath,
      // No sandbox as root in CI; no background traffic on a machine without internet.
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
    });
    try {
      const page = await browser.newPage();
      await page.goto(serverUrl);
      await expect(page.title()).resolves.toBe("Almanac MCP server");
      const status = await page.locator(".up").innerText();
      expect(status).toMatch(/^Up: serving \d+ documents\.$/);
      await expect(page.locator("pre").innerText()).resolves.toContain(`"url": "${serverUrl}/mcp"`);
      await expect(page.locator("li code").allInnerTexts()).resolves.toEqual(
        expect.arrayContaining(["search_documents", "get_documents", "answer_query", "query_library_search", "query_library_get"]),
      );
      await page.screenshot({ path: join(mkdtempSync(join(tmpdir(), "almanac-landing-")), "landing.png") });
      await page.getByRole("link", { name: "/healthz" }).click();
      await expect(page.locator("body").innerText()).resolves.toContain('"status":"ok"');
    } finally {
      await browser.close();
    }
  });
});
