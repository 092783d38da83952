// Whatever a person (or a script) types into the panels' fields, the answer
// is a page with a 2xx or 4xx status: never a 500.
import { exports } from "cloudflare:workers";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { loadCorpus } from "../support/corpus.ts";
import { loadDefaultLibrary } from "../support/library-fixtures.ts";
import { getPage, ORIGIN, postForm } from "../support/landing-page.ts";

beforeAll(async () => {
  await loadCorpus();
  await loadDefaultLibrary();
});

/** Text people and scripts send: any Unicode, FTS and filter syntax, quotes, very long runs. */
const awkward = fc.oneof(
  fc.string({ unit: "binary", maxLength: 80 }),
  fc.constantFrom('"', "\\", "' OR 1=1 --", "NEAR(a b)", 'data_source = "x"', "{{org}}", "../..", "__proto__", "🙂", "\u0000", "x".repeat(600)),
);

const RUNS = 40;

describe("the panels under arbitrary input", () => {
  it("search answers every query, source, page token and start with a page", async () => {
    await fc.assert(
      fc.asyncProperty(awkward, awkward, awkward, awkward, async (query, dataSource, pageToken, start) => {
        const { response, html } = await getPage(`/try/search?${new URLSearchParams({ query, dataSource, pageToken, start })}`, { "CF-Connecting-IP": "198.51.100.60" });
        expect(response.status).toBeLessThan(500);
        expect(html).toMatch(/^<!doctype html>/);
      }),
      { numRuns: RUNS },
    );
  });

  it("the query library answers every intent, provider, id and param with a page", async () => {
    await fc.assert(
      fc.asyncProperty(awkward, awkward, awkward, fc.array(fc.tuple(awkward, awkward), { maxLength: 4 }), async (intent, provider, id, params) => {
        const fields = new URLSearchParams({ intent, provider, id });
        for (const [name, value] of params) fields.append(`p.${name}`, value);
        fields.append("p.org", params[0]?.[1] ?? "");
        const { response } = await getPage(`/try/library?${fields}`, { "CF-Connecting-IP": "198.51.100.60" });
        expect(response.status).toBeLessThan(500);
      }),
      { numRuns: RUNS },
    );
  });

  it("asking answers every question, source and key with a page", async () => {
    await fc.assert(
      fc.asyncProperty(awkward, awkward, fc.oneof(fc.constant(""), awkward), async (query, dataSource, key) => {
        const { response } = await postForm("/try/ask", { query, dataSource, key }, { "CF-Connecting-IP": "198.51.100.61" });
        expect(response.status).toBeLessThan(500);
      }),
      { numRuns: RUNS },
    );
  });
});

describe("forms a browser would never send (issue 39, row 7)", () => {
  /** A POST with this body and content type, from the page's own origin. */
  const post = (path: string, contentType: string, body: string) =>
    exports.default.fetch(new Request(`${ORIGIN}${path}`, { method: "POST", headers: { Origin: ORIGIN, "Content-Type": contentType, "CF-Connecting-IP": "198.51.100.62" }, body }));

  const malformed: [string, string][] = [
    ["multipart/form-data", "query=no boundary"],
    ["multipart/form-data; boundary=xyz", "not a multipart body at all"],
    ["multipart/form-data; boundary=xyz", '--xyz\r\nContent-Disposition: form-data; name="query"\r\n\r\nunfinished'],
    ["multipart/form-data; boundary=", "--\r\n\r\n"],
  ];

  for (const path of ["/try/ask", "/try/allowance"]) {
    it(`${path} answers a malformed multipart body with 400 and a page saying what to send, not 500`, async () => {
      for (const [contentType, body] of malformed) {
        const response = await post(path, contentType, body);
        const html = await response.text();
        expect(response.status, `${contentType}: ${body}`).toBe(400);
        expect(html).toMatch(/^<!doctype html>/);
        expect(html).toContain("the form could not be read");
      }
    });
  }
});
