// Google's own Node client for the Developer Knowledge API (googleapis,
// developerknowledge v1), unmodified but for rootUrl, against the real dev server.
import { google, type developerknowledge_v1 } from "googleapis";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { awayFromMinuteEnd } from "../support/clock.ts";

const serverUrl = inject("serverUrl");
/** Keys made for this file before the files ran (global-setup.ts SHARED_KEYS). */
const keys = inject("sharedKeys");

/** The client exactly as Google documents it, pointed at Almanac. */
function developerKnowledge(auth?: string): developerknowledge_v1.Developerknowledge {
  return google.developerknowledge({ version: "v1", rootUrl: `${serverUrl}/`, ...(auth ? { auth } : {}) });
}

/** The Google error a client call was refused with: HTTP status and the body's error. */
async function refusal(call: Promise<unknown>): Promise<{ status: number; error: { code: number; status: string; message: string } }> {
  try {
    await call;
  } catch (thrown) {
    const error = thrown as { status?: number; response?: { data?: { error: { code: number; status: string; message: string } } } };
    if (error.status && error.response?.data?.error) return { status: error.status, error: error.response.data.error };
    throw thrown;
  }
  throw new Error("the call succeeded");
}

let client: developerknowledge_v1.Developerknowledge;

beforeAll(() => {
  client = developerKnowledge(keys["googleapis-e2e"]);
});

describe("googleapis developerknowledge v1 against npm start", () => {
  it("searches document chunks, pages with nextPageToken and filters", async () => {
    const first = await client.documents.searchDocumentChunks({ query: "connect Claude Desktop", pageSize: 2 });
    expect(first.status).toBe(200);
    expect(first.data.results?.[0]?.parent).toBe("documents/almanac.dev/docs/clients/claude-desktop");
    expect(first.data.results?.[0]?.document).toMatchObject({ view: "DOCUMENT_VIEW_BASIC", dataSource: "almanac.dev", contentLengthBytes: expect.any(Number) });
    expect(first.data.nextPageToken).toEqual(expect.any(String));
    // Google's DocumentChunk.relevanceScore, read through the client's own type: in [0, 1], never rising down the list.
    const scores = (first.data.results ?? []).map((hit: developerknowledge_v1.Schema$DocumentChunk) => hit.relevanceScore);
    expect(scores).toEqual([expect.any(Number), expect.any(Number)]);
    expect((scores[0] ?? 0) >= (scores[1] ?? 0) && (scores[0] ?? 0) <= 1 && (scores[1] ?? -1) >= 0).toBe(true);
    const second = await client.documents.searchDocumentChunks({ query: "connect Claude Desktop", pageSize: 2, pageToken: first.data.nextPageToken ?? "" });
    expect(second.data.results?.map((hit) => `${hit.parent}#${hit.id}`)).not.toContain(`${first.data.results?.[0]?.parent}#${first.data.results?.[0]?.id}`);
    const filtered = await client.documents.searchDocumentChunks({ query: "quota", filter: 'uri = "https://almanac.dev/docs/api-keys-and-quotas"' });
    expect(new Set(filtered.data.results?.map((hit) => hit.parent))).toEqual(new Set(["documents/almanac.dev/docs/api-keys-and-quotas"]));
  });

  it("gets a document in each view, its name expanded into the path as the client does", async () => {
    const name = "documents/almanac.dev/docs/filters";
    const content = await client.documents.get({ name });
    expect(content.data).toMatchObject({ name, view: "DOCUMENT_VIEW_CONTENT", title: expect.any(String), updateTime: expect.stringMatching(/Z$/) });
    expect(content.data.contentLengthBytes).toBe(Buffer.byteLength(content.data.content ?? "", "utf8"));
    const basic = await client.documents.get({ name, view: "DOCUMENT_VIEW_BASIC" });
    expect(basic.data.content).toBeUndefined();
    expect((await client.documents.get({ name, view: "DOCUMENT_VIEW_FULL" })).data.content).toBe(content.data.content);
    // googleapis types response headers as HTTP/2's record; over HTTP/1.1 they are a Headers, which new Headers() copies.
    expect(new Headers(content.headers as unknown as HeadersInit).get("etag")).toMatch(/^"[0-9a-f]{40}"$/);
  });

  it("batch-gets documents in the order named", async () => {
    const names = ["documents/almanac.dev/docs/configuration", "documents/almanac.dev/docs/filters", "documents/almanac.dev/docs/getting-started"];
    const { data } = await client.documents.batchGet({ names, view: "DOCUMENT_VIEW_BASIC" });
    expect(data.documents?.map((document) => document.name)).toEqual(names);
  });

  it("answers a query with references and UTF-8 byte citations", async () => {
    const { data } = await client.v1.answerQuery({ requestBody: { query: "How do I revoke an API key?" } });
    const answer = data.answer;
    expect(answer?.answerText).toEqual(expect.any(String));
    expect(answer?.references?.[0]?.documentReference?.documentChunk?.parent).toMatch(/^documents\/almanac\.dev\/docs\//);
    const bytes = Buffer.from(answer?.answerText ?? "", "utf8");
    for (const citation of answer?.citations ?? []) {
      expect(citation.endIndex ?? 0).toBeGreaterThan(citation.startIndex ?? 0);
      expect(citation.endIndex ?? 0).toBeLessThanOrEqual(bytes.byteLength);
      expect(answer?.references?.[citation.sources?.[0]?.referenceIndex ?? 0]).toBeDefined();
    }
  });

  it("surfaces an unknown name as 404 NOT_FOUND naming every missing document", async () => {
    expect(await refusal(client.documents.get({ name: "documents/almanac.dev/docs/nope" }))).toEqual({
      status: 404,
      error: { code: 404, status: "NOT_FOUND", message: expect.stringContaining('no document named "documents/almanac.dev/docs/nope"') },
    });
    const batch = await refusal(client.documents.batchGet({ names: ["documents/almanac.dev/docs/nope-1", "documents/almanac.dev/docs/filters", "documents/almanac.dev/docs/nope-2"] }));
    expect(batch.error.message).toMatch(/^no document named "documents\/almanac.dev\/docs\/nope-1", "documents\/almanac.dev\/docs\/nope-2"/);
  });

  it("surfaces a bad filter and a bad page token as 400 INVALID_ARGUMENT", async () => {
    const filter = await refusal(client.documents.searchDocumentChunks({ query: "quota", filter: "size > 3" }));
    expect(filter).toMatchObject({ status: 400, error: { code: 400, status: "INVALID_ARGUMENT", message: expect.stringContaining("size") } });
    const token = await refusal(client.documents.searchDocumentChunks({ query: "quota", pageToken: "not-a-token" }));
    expect(token).toMatchObject({ status: 400, error: { status: "INVALID_ARGUMENT", message: expect.stringMatching(/^pageToken is not a token this server issued/) } });
    const answerFilter = await refusal(client.v1.answerQuery({ requestBody: { query: "quota", filter: 'data_source = "x" AND' } }));
    expect(answerFilter).toMatchObject({ status: 400, error: { status: "INVALID_ARGUMENT" } });
  });

  it("surfaces a bad key as 401 UNAUTHENTICATED", async () => {
    const refused = await refusal(developerKnowledge("alm_not-a-key").documents.searchDocumentChunks({ query: "quota" }));
    expect(refused).toEqual({ status: 401, error: { code: 401, status: "UNAUTHENTICATED", message: expect.stringContaining("is not valid on this server (unknown key)") } });
  });

  it("is described on the landing page with a curl example that works", async () => {
    // The page's text as a browser shows it (the landing page escapes quotes as entities).
    const page = (await (await fetch(serverUrl)).text()).replaceAll("&quot;", '"').replaceAll("&#39;", "'").replaceAll("&amp;", "&");
    expect(page).toContain(`<pre id="rest-url" data-language="text">${serverUrl}/v1</pre>`);
    expect(page).toContain(`rootUrl: "${serverUrl}/"`);
    const example = /<pre id="rest-example" data-language="sh">curl '([^']+)'<\/pre>/.exec(page)?.[1] ?? "";
    expect(example).toBe(`${serverUrl}/v1/documents:searchDocumentChunks?query=getting+started`);
    const response = await fetch(example);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { results?: unknown[] }).results?.length).toBeGreaterThan(0);
  });

  it("surfaces a spent quota as 429 RESOURCE_EXHAUSTED with Retry-After, while search keeps working", async () => {
    const limited = developerKnowledge(keys["googleapis-quota"]);
    // After the key: making it takes seconds, and both calls must fall in one minute.
    await awayFromMinuteEnd();
    expect((await limited.v1.answerQuery({ requestBody: { query: "What is Almanac?" } })).status).toBe(200);
    let retryAfter: string | null = null;
    const refused = await refusal(
      limited.v1.answerQuery({ requestBody: { query: "What is Almanac?" } }).catch((error: { response?: { headers: Headers } }) => {
        retryAfter = error.response?.headers.get("retry-after") ?? null;
        throw error;
      }),
    );
    expect(refused).toEqual({ status: 429, error: { code: 429, status: "RESOURCE_EXHAUSTED", message: expect.stringContaining('this API key ("googleapis-quota") may make 1 call per minute and has none left') } });
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect((await limited.documents.searchDocumentChunks({ query: "quota" })).status).toBe(200);
  });
});
