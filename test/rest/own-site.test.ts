// A user's own site through the REST facade: names that need percent-encoding,
// pages without a description, and citations over multi-byte text.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "../../src/auth/key-store.ts";
import { prepareSite, siteFor } from "../../src/documents/ingest/prepare-pages.ts";
import { syncDocuments } from "../../src/documents/ingest/write-corpus.ts";
import { answerQuery, restJson } from "../support/rest.ts";

const BASE = "https://cafe.example/docs";

const PAGES = [
  {
    path: "crème brûlée.md",
    text: [
      "---",
      "title: Crème brûlée",
      "---",
      "",
      "# Crème brûlée",
      "",
      "## Caramélisation",
      "",
      "Le sucre de la crème brûlée se caramélise au chalumeau, à 180 °C, juste avant le service.",
      "La croûte doit être fine et cassante — jamais brûlée.",
    ].join("\n"),
  },
  { path: "menu.md", text: "---\ntitle: Menu\ndescription: What the café serves.\n---\n\n# Menu\n\nCoffee, tea and crème brûlée." },
];

let keyed: Record<string, string>;

beforeAll(async () => {
  const { documents } = await prepareSite(PAGES, siteFor(BASE));
  await syncDocuments(env.DB, BASE, documents, { prune: false });
  keyed = { "X-Goog-Api-Key": (await createApiKey(env.DB, { label: "own-site", answerPerMinute: 100 })).key };
});

const NAME = "documents/cafe.example/docs/cr%C3%A8me%20br%C3%BBl%C3%A9e";

describe("a page whose name holds percent-encoded characters", () => {
  it("is fetched by the path Google's client sends, each segment encoded once more", async () => {
    // googleapis expands {+name} encoding "%" as "%25": the name's own escapes arrive doubly encoded.
    const path = `/v1/${NAME.split("/").map(encodeURIComponent).join("/")}`;
    expect(path).toBe("/v1/documents/cafe.example/docs/cr%25C3%25A8me%2520br%25C3%25BBl%25C3%25A9e");
    const { status, body } = await restJson(path);
    expect(status).toBe(200);
    expect(body).toMatchObject({ name: NAME, title: "Crème brûlée", uri: "https://cafe.example/docs/cr%C3%A8me%20br%C3%BBl%C3%A9e" });
  });

  it("leaves out an empty description, as proto3 JSON does", async () => {
    const { body } = await restJson(`/v1/documents:batchGet?names=${encodeURIComponent(NAME)}&names=documents/cafe.example/docs/menu&view=DOCUMENT_VIEW_BASIC`);
    const [creme, menu] = body.documents as Record<string, unknown>[];
    expect(creme).not.toHaveProperty("description");
    expect(menu?.description).toBe("What the café serves.");
  });

  it("counts contentLengthBytes in UTF-8 bytes, not characters", async () => {
    const { body } = await restJson<{ content: string; contentLengthBytes: number }>(`/v1/${encodeURIComponent(NAME).replace(/%2F/g, "/")}`);
    expect(body.contentLengthBytes).toBe(new TextEncoder().encode(body.content).byteLength);
    expect(body.contentLengthBytes).toBeGreaterThan(body.content.length);
  });
});

describe("citations over multi-byte text", () => {
  it("measure startIndex and endIndex in UTF-8 bytes of answerText", async () => {
    const response = await answerQuery({ query: "À quelle température caramélise la crème brûlée ?" }, keyed);
    const { answer } = (await response.json()) as { answer: { answerText: string; citations: { startIndex?: number; endIndex: number }[] } };
    expect(answer.answerText).toContain("°C");
    const bytes = new TextEncoder().encode(answer.answerText);
    const last = answer.citations[answer.citations.length - 1];
    // The last span ends at the end of the text: in bytes, which is past its length in UTF-16 units.
    expect(last?.endIndex).toBe(bytes.byteLength);
    expect(bytes.byteLength).toBeGreaterThan(answer.answerText.length);
    const spans = answer.citations.map((citation) => new TextDecoder().decode(bytes.slice(citation.startIndex ?? 0, citation.endIndex)));
    // Each span is whole characters of the text, in order; between them only spacing and the See also list's "See also: " and "; ".
    let rest = answer.answerText;
    for (const span of spans) {
      const at = rest.indexOf(span);
      expect(rest.slice(0, at).replace(/See also: |; /g, "").trim()).toBe("");
      rest = rest.slice(at + span.length);
    }
    expect(rest).toBe("");
    expect(spans.some((span) => span.startsWith("Le sucre de la crème brûlée se caramélise"))).toBe(true);
  });
});
