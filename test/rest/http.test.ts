// HTTP around the REST methods: ETag and 304, Cache-Control, CORS under
// ALLOWED_ORIGINS and ALLOWED_HOSTS, and Google's system parameters.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "../../src/auth/key-store.ts";
import { corpusName, loadCorpus } from "../support/corpus.ts";
import { answerQuery, rest, restJson } from "../support/rest.ts";

let key: string;

beforeAll(async () => {
  await loadCorpus();
  key = (await createApiKey(env.DB, { label: "rest-http", answerPerMinute: 100 })).key;
});

const PAGE = `/v1/${corpusName("filters")}`;
const SEARCH = "/v1/documents:searchDocumentChunks?query=api+key";

describe("ETag and If-None-Match", () => {
  it.each([PAGE, SEARCH, `/v1/documents:batchGet?names=${corpusName("filters")}`])("tags %s and answers 304 without a body when the tag still matches", async (path) => {
    const first = await rest(path);
    const tag = first.headers.get("ETag");
    expect(tag).toMatch(/^"[0-9a-f]{40}"$/);
    const again = await rest(path, { headers: { "If-None-Match": tag as string } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    expect(again.headers.get("ETag")).toBe(tag);
    expect(again.headers.get("Cache-Control")).toBe(first.headers.get("Cache-Control"));
    // A tag among others, or a weak copy of it, still matches (RFC 9110 §13.1.2: weak comparison).
    expect((await rest(path, { headers: { "If-None-Match": `"other", W/${tag}` } })).status).toBe(304);
  });

  it("derives the tag from the content: another view, another page or compact JSON has another tag", async () => {
    const tags = await Promise.all(
      [PAGE, `${PAGE}?view=DOCUMENT_VIEW_BASIC`, `/v1/${corpusName("configuration")}`, `${PAGE}?prettyPrint=false`].map(async (path) => (await rest(path)).headers.get("ETag")),
    );
    expect(new Set(tags).size).toBe(4);
    expect((await rest(PAGE, { headers: { "If-None-Match": '"stale"' } })).status).toBe(200);
  });

  it("tags no error and no answer", async () => {
    expect((await rest(`/v1/${corpusName("nope")}`)).headers.get("ETag")).toBeNull();
    expect((await answerQuery({ query: "What is a filter?" }, { "X-Goog-Api-Key": key })).headers.get("ETag")).toBeNull();
  });

  it("answers HEAD like GET, without the body", async () => {
    const head = await rest(PAGE, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    expect(head.headers.get("ETag")).toBe((await rest(PAGE)).headers.get("ETag"));
  });
});

describe("Cache-Control", () => {
  it("lets shared caches keep an anonymous read for five minutes", async () => {
    const response = await rest(PAGE);
    expect(response.headers.get("Cache-Control")).toBe("public, max-age=300");
    // The allowed origin decides Access-Control-Allow-Origin, so Origin is named too.
    expect(response.headers.get("Vary")).toBe("X-Goog-Api-Key, Authorization, Origin");
  });

  it.each([
    ["X-Goog-Api-Key", (k: string) => ({ headers: { "X-Goog-Api-Key": k } }), PAGE],
    ["Authorization: Bearer", (k: string) => ({ headers: { Authorization: `Bearer ${k}` } }), PAGE],
    ["?key=", () => ({}), `${PAGE}?key=`],
  ])("keeps a read with a key (%s) out of shared caches", async (_, init, path) => {
    const response = await rest(path.endsWith("key=") ? `${path}${key}` : path, init(key));
    expect(response.status).toBe(200);
    expect(response.headers.get("Cache-Control")).toBe("private, max-age=300");
  });

  it("lets no cache store an answer or an error", async () => {
    expect((await answerQuery({ query: "What is a filter?" }, { "X-Goog-Api-Key": key })).headers.get("Cache-Control")).toBe("no-store");
    expect((await rest(`/v1/${corpusName("nope")}`)).headers.get("Cache-Control")).toBe("no-store");
    expect((await rest(PAGE, { headers: { "X-Goog-Api-Key": "alm_unknown" } })).headers.get("Cache-Control")).toBe("no-store");
  });
});

describe("browsers: CORS under ALLOWED_ORIGINS, DNS rebinding under ALLOWED_HOSTS", () => {
  const docsSite = { ALLOWED_ORIGINS: "https://docs.example.com" };

  it("lets an allowed origin read responses, errors and 304s included, and the quota and tag headers", async () => {
    const headers = { Origin: "https://docs.example.com" };
    const ok = await rest(PAGE, { headers }, docsSite);
    expect(ok.headers.get("Access-Control-Allow-Origin")).toBe("https://docs.example.com");
    expect(ok.headers.get("Access-Control-Expose-Headers")).toBe("ETag,Retry-After,RateLimit-Limit,RateLimit-Remaining,RateLimit-Reset,RateLimit-Policy");
    expect(ok.headers.get("Vary")).toContain("Origin");
    const missing = await rest(`/v1/${corpusName("nope")}`, { headers }, docsSite);
    expect(missing.status).toBe(404);
    expect(missing.headers.get("Access-Control-Allow-Origin")).toBe("https://docs.example.com");
    const notModified = await rest(PAGE, { headers: { ...headers, "If-None-Match": ok.headers.get("ETag") as string } }, docsSite);
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get("Access-Control-Allow-Origin")).toBe("https://docs.example.com");
  });

  it("answers an allowed origin's preflight with the methods and headers Google's clients send", async () => {
    const preflight = await rest(
      "/v1:answerQuery",
      { method: "OPTIONS", headers: { Origin: "https://docs.example.com", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type,x-goog-api-key" } },
      docsSite,
    );
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("Access-Control-Allow-Origin")).toBe("https://docs.example.com");
    expect(preflight.headers.get("Access-Control-Allow-Methods")).toBe("GET,HEAD,POST");
    expect(preflight.headers.get("Access-Control-Allow-Headers")).toBe("Authorization,Content-Type,If-None-Match,X-Goog-Api-Key,X-Goog-Api-Client");
    expect(preflight.headers.get("Access-Control-Max-Age")).toBe("600");
  });

  it("refuses any other origin with 403 before charging anything, as /mcp does", async () => {
    for (const vars of [{}, docsSite]) {
      const response = await answerQuery({ query: "What is a filter?" }, { Origin: "https://evil.example", "X-Goog-Api-Key": key }, vars);
      expect(response.status).toBe(403);
      expect(response.headers.get("Access-Control-Allow-Origin")).toBeNull();
      expect(await response.json()).toEqual({
        error: { code: 403, status: "PERMISSION_DENIED", message: 'Origin "https://evil.example" may not call this server; its operator can allow it by adding it to ALLOWED_ORIGINS' },
      });
    }
    expect((await rest(PAGE, { method: "OPTIONS", headers: { Origin: "https://evil.example" } }, docsSite)).status).toBe(403);
  });

  it("lets any origin in with ALLOWED_ORIGINS = *, and the server's own origin always", async () => {
    const any = await rest(PAGE, { headers: { Origin: "https://anyone.example" } }, { ALLOWED_ORIGINS: "*" });
    expect(any.headers.get("Access-Control-Allow-Origin")).toBe("https://anyone.example");
    expect((await rest(PAGE, { headers: { Origin: "http://localhost" } })).status).toBe(200);
  });

  it("refuses a Host outside ALLOWED_HOSTS (a rebound name) with 403", async () => {
    const vars = { ALLOWED_HOSTS: "localhost,127.0.0.1" };
    expect((await rest(PAGE, {}, vars)).status).toBe(200);
    const rebound = await rest(PAGE, { headers: { Host: "evil.example.com" } }, vars);
    expect(rebound.status).toBe(403);
    expect(await rebound.json()).toEqual({
      error: { code: 403, status: "PERMISSION_DENIED", message: 'Host "evil.example.com" is not served here; allowed hosts: localhost, 127.0.0.1' },
    });
  });
});

describe("Google's system parameters", () => {
  it("indents JSON by default, as Google does, and writes it compact with prettyPrint=false", async () => {
    const pretty = await (await rest(`${PAGE}?view=DOCUMENT_VIEW_BASIC`)).text();
    expect(pretty).toMatch(/^\{\n {2}"name": "documents\/almanac.dev\/docs\/filters",\n/);
    const compact = await (await rest(`${PAGE}?view=DOCUMENT_VIEW_BASIC&prettyPrint=false`)).text();
    expect(compact).toMatch(/^\{"name":"documents\/almanac.dev\/docs\/filters","uri"/);
    expect(JSON.parse(compact)).toEqual(JSON.parse(pretty));
  });

  it("returns only the fields asked for with fields=", async () => {
    const { body } = await restJson(`${SEARCH}&pageSize=2&fields=${encodeURIComponent("results(parent,document/title),nextPageToken")}`);
    expect(Object.keys(body).sort()).toEqual(["nextPageToken", "results"]);
    for (const result of body.results as Record<string, unknown>[]) {
      expect(result).toEqual({ parent: expect.any(String), document: { title: expect.any(String) } });
    }
    const page = await restJson(`${PAGE}?fields=name,content_length_bytes`);
    expect(page.body).toEqual({ name: corpusName("filters"), contentLengthBytes: expect.any(Number) });
  });

  it.each([
    ["alt=proto", 400, "INVALID_ARGUMENT", 'alt "proto" is not served; this server answers JSON only (alt=json)'],
    ["callback=run", 400, "INVALID_ARGUMENT", "JSONP (callback) is not served; call from a browser with CORS instead (the operator lists your origin in ALLOWED_ORIGINS)"],
    ["prettyPrint=yes", 400, "INVALID_ARGUMENT", 'prettyPrint must be true or false, not "yes"'],
    ["$.xgafv=3", 400, "INVALID_ARGUMENT", '$.xgafv must be 1 or 2, not "3"'],
    ["fields=results(parent", 400, "INVALID_ARGUMENT", 'fields "results(parent" is not a valid field selection: expected ")" at character 15'],
    ["access_token=ya29.x", 401, "UNAUTHENTICATED", "OAuth tokens (access_token) are not accepted; send an API key as X-Goog-Api-Key: <key>, Authorization: Bearer <key> or ?key=<key>"],
  ])("refuses %s with %i %s", async (parameter, code, status, message) => {
    const response = await restJson(`${SEARCH}&${parameter}`);
    expect(response.status).toBe(code);
    expect(response.body).toEqual({ error: { code, status, message } });
  });
});
