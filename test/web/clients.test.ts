// The page's client snippets are the documentation's: each one, rendered for
// the URL a client page uses, must appear in that page word for word.
import { describe, expect, it } from "vitest";
import { clientSetups } from "../../src/web/clients.ts";
import { getPage, text } from "../support/landing-page.ts";

const pages = import.meta.glob<string>("../../corpus/docs/clients/*.md", { query: "?raw", import: "default", eager: true });

/** The URLs the client pages show: a local server without a key, a deployed one with a key. */
const LOCAL = "http://localhost:8787/mcp";
const DEPLOYED = "https://almanac.example.workers.dev/mcp";

function clientPage(docPath: string): string {
  const page = pages[`../../corpus/docs/${docPath}.md`];
  if (page === undefined) throw new Error(`no corpus page ${docPath}`);
  return page;
}

describe.each(clientSetups(LOCAL).map((client, index) => [client.name, index] as const))("the %s snippets", (_name, index) => {
  const local = clientSetups(LOCAL)[index];
  const deployed = clientSetups(DEPLOYED)[index];
  if (!local || !deployed) throw new Error("client lists differ");

  it("are the documentation's, word for word", () => {
    const page = clientPage(local.docPath);
    expect(page).toContain(local.plain.text);
    expect(page).toContain(deployed.bearer.text);
    expect(page).toContain(deployed.googApiKey.text);
  });

  it("carry the server's own URL and send the key in the header each names", () => {
    if (local.plain.language === "json") expect(() => JSON.parse(local.plain.text)).not.toThrow();
    if (local.bearer.language === "json") expect(() => JSON.parse(local.bearer.text)).not.toThrow();
    if (local.googApiKey.language === "json") expect(() => JSON.parse(local.googApiKey.text)).not.toThrow();
    if (local.id !== "generic") {
      for (const snippet of [local.plain, local.bearer, local.googApiKey]) expect(snippet.text).toContain(LOCAL);
    }
    expect(local.bearer.text).toContain("Authorization");
    expect(local.bearer.text).toContain("Bearer");
    expect(local.googApiKey.text).toContain("X-Goog-Api-Key");
  });
});

it("fills in the URL the page was opened at", async () => {
  const { html } = await getPage("/", { "CF-Connecting-IP": "198.51.100.50" });
  expect(await text(html, "#snippet-cursor")).toBe(clientSetups("https://almanac.test/mcp")[2]?.plain.text);
  expect(await text(html, "#snippet-claude-code")).toBe("claude mcp add --transport http almanac https://almanac.test/mcp");
});
