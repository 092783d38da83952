// The facade against Google's discovery document itself: every method at its
// path and HTTP method, every parameter accepted, every response field one the
// document declares, and the document views as its descriptions define them.
import { beforeAll, describe, expect, it } from "vitest";
import { corpusName, loadCorpus } from "../support/corpus.ts";
import { answerQuery, discoveryMethods, rest, restJson, schemaProperties, schemaViolations, systemParameters } from "../support/rest.ts";

beforeAll(async () => {
  await loadCorpus();
});

const NAME = corpusName("api-keys-and-quotas");

/** A request for each method with its required parameters filled in. */
const REQUESTS: Record<string, { path: string; init?: RequestInit; response: string }> = {
  "developerknowledge.documents.searchDocumentChunks": { path: "/v1/documents:searchDocumentChunks?query=api+key", response: "SearchDocumentChunksResponse" },
  "developerknowledge.documents.get": { path: `/v1/${NAME}`, response: "Document" },
  "developerknowledge.documents.batchGet": { path: `/v1/documents:batchGet?names=${NAME}`, response: "BatchGetDocumentsResponse" },
  "developerknowledge.answerQuery": {
    path: "/v1:answerQuery",
    init: { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ query: "How do I revoke an API key?" }) },
    response: "AnswerQueryResponse",
  },
};

describe("the discovery document's methods", () => {
  it("has a request here for every method it lists", () => {
    expect(Object.keys(REQUESTS).sort()).toEqual(Object.keys(discoveryMethods).sort());
  });

  it.each(Object.keys(REQUESTS))("serves %s at its flatPath and HTTP method, answering the response schema", async (id) => {
    const method = discoveryMethods[id];
    const request = REQUESTS[id];
    if (!method || !request) throw new Error(id);
    // flatPath "v1/documents/{documentsId}" is the path with the name in place of the template.
    expect(new URL(request.path, "http://x").pathname.slice(1)).toMatch(new RegExp(`^${method.flatPath.replace(/\{[^}]+\}/, ".+")}$`));
    expect(request.init?.method ?? "GET").toBe(method.httpMethod);
    const { status, body } = await restJson(request.path, request.init);
    expect(status).toBe(200);
    expect(schemaViolations(body, { $ref: request.response })).toEqual([]);
  });

  it.each(Object.keys(REQUESTS))("refuses %s with another HTTP method: 405 naming the one it takes", async (id) => {
    const method = discoveryMethods[id];
    const request = REQUESTS[id];
    if (!method || !request) throw new Error(id);
    const other = method.httpMethod === "GET" ? "POST" : "GET";
    const response = await rest(request.path, { method: other });
    expect(response.status).toBe(405);
    expect(response.headers.get("Allow")).toContain(method.httpMethod);
    expect(await response.json()).toEqual({
      error: { code: 405, status: "UNIMPLEMENTED", message: `${other} is not served on ${new URL(request.path, "http://x").pathname}; use ${method.httpMethod}` },
    });
  });
});

describe("parameters", () => {
  it("accepts every query parameter the discovery document declares for search, in its JSON name and its proto name", async () => {
    const declared = Object.keys(discoveryMethods["developerknowledge.documents.searchDocumentChunks"]?.parameters ?? {});
    expect(declared.sort()).toEqual(["filter", "pageSize", "pageToken", "query"]);
    const filter = 'data_source = "almanac.dev"';
    const first = await restJson<{ nextPageToken: string }>(`/v1/documents:searchDocumentChunks?${new URLSearchParams({ query: "api key", pageSize: "1", filter })}`);
    const values: Record<string, string> = { query: "api key", pageSize: "1", pageToken: first.body.nextPageToken, filter };
    const camel = new URLSearchParams(values);
    const snake = new URLSearchParams(Object.entries(values).map(([name, value]) => [name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), value]));
    for (const query of [camel, snake]) {
      const { status, body } = await restJson(`/v1/documents:searchDocumentChunks?${query}`);
      expect(status, JSON.stringify(body)).toBe(200);
    }
  });

  it("accepts Google's system parameters that any client may send", async () => {
    // callback (JSONP), access_token and oauth_token (OAuth) are refused on purpose: see the errors tests.
    const harmless: Record<string, string> = { "$.xgafv": "2", alt: "json", fields: "results", prettyPrint: "false", quotaUser: "someone", uploadType: "media", upload_protocol: "raw" };
    expect(Object.keys(systemParameters).sort()).toEqual([...Object.keys(harmless), "access_token", "callback", "key", "oauth_token"].sort());
    const { status } = await restJson(`/v1/documents:searchDocumentChunks?query=api+key&${new URLSearchParams(harmless)}`);
    expect(status).toBe(200);
  });

  it("takes the repeated names parameter of batchGet as the discovery document marks it", async () => {
    expect(discoveryMethods["developerknowledge.documents.batchGet"]?.parameters.names?.repeated).toBe(true);
    const other = corpusName("filters");
    const { body } = await restJson<{ documents: { name: string }[] }>(`/v1/documents:batchGet?names=${NAME}&names=${other}`);
    expect(body.documents.map((document) => document.name)).toEqual([NAME, other]);
  });
});

/** The fields a DocumentView's description lists, camelCased: "- `data_source` …" → dataSource. */
function fieldsListed(description: string): string[] {
  return [...description.matchAll(/`([a-z_]+)`/g)].map((match) => (match[1] ?? "").replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()));
}

describe("document views", () => {
  const viewParameter = discoveryMethods["developerknowledge.documents.get"]?.parameters.view;
  const descriptions = Object.fromEntries((viewParameter?.enum ?? []).map((view, index) => [view, viewParameter?.enumDescriptions?.[index] ?? ""]));

  it("answers BASIC with exactly the metadata fields its description lists", async () => {
    const basic = fieldsListed((descriptions.DOCUMENT_VIEW_BASIC ?? "").split("This is")[0] ?? "");
    expect(basic).toEqual(["name", "uri", "dataSource", "title", "description", "updateTime", "view", "contentLengthBytes"]);
    const { body } = await restJson(`/v1/${NAME}?view=DOCUMENT_VIEW_BASIC`);
    expect(Object.keys(body).sort()).toEqual([...basic].sort());
    expect(body.view).toBe("DOCUMENT_VIEW_BASIC");
  });

  it("answers CONTENT with the BASIC fields and content, FULL with every Document field", async () => {
    expect(descriptions.DOCUMENT_VIEW_CONTENT).toMatch(/^Includes the `DOCUMENT_VIEW_BASIC` fields and the `content` field\./);
    expect(descriptions.DOCUMENT_VIEW_FULL).toBe("Includes all Document fields.");
    const content = await restJson(`/v1/${NAME}?view=DOCUMENT_VIEW_CONTENT`);
    const full = await restJson(`/v1/${NAME}?view=DOCUMENT_VIEW_FULL`);
    expect(Object.keys(full.body).sort()).toEqual(Object.keys(schemaProperties("Document")).sort());
    expect(Object.keys(content.body).sort()).toEqual(Object.keys(schemaProperties("Document")).sort());
    expect({ ...content.body, view: "x" }).toEqual({ ...full.body, view: "x" });
  });

  it.each(["developerknowledge.documents.get", "developerknowledge.documents.batchGet"])(
    "gives %s the default view its description names when none is asked for, or UNSPECIFIED",
    async (id) => {
      const description = discoveryMethods[id]?.parameters.view?.description ?? "";
      const fallback = /defaults to `(DOCUMENT_VIEW_[A-Z]+)`/.exec(description)?.[1];
      expect(fallback).toBe("DOCUMENT_VIEW_CONTENT");
      const path = id.endsWith("batchGet") ? `/v1/documents:batchGet?names=${NAME}` : `/v1/${NAME}`;
      for (const suffix of ["", "&view=DOCUMENT_VIEW_UNSPECIFIED"]) {
        const { body } = await restJson<Record<string, unknown> & { documents?: Record<string, unknown>[] }>(`${path}${path.includes("?") ? suffix : suffix.replace("&", "?")}`);
        const document = body.documents?.[0] ?? body;
        expect(document.view).toBe(fallback);
        expect(document.content).toEqual(expect.any(String));
      }
    },
  );

  it("gives search results' documents the view DocumentChunk.document's description names", async () => {
    const description = schemaProperties("DocumentChunk").document?.description ?? "";
    expect(description).toContain("The DocumentView of this Document message will be set to `DOCUMENT_VIEW_BASIC`.");
    const { body } = await restJson<{ results: { document: Record<string, unknown> }[] }>("/v1/documents:searchDocumentChunks?query=api+key");
    for (const result of body.results) {
      expect(result.document.view).toBe("DOCUMENT_VIEW_BASIC");
      expect(result.document).not.toHaveProperty("content");
    }
  });

  it("takes a view's enum number as Google's front end does", async () => {
    const byNumber = await restJson(`/v1/${NAME}?view=1`);
    expect(byNumber.body.view).toBe("DOCUMENT_VIEW_BASIC");
  });
});

describe("answers", () => {
  it("leaves documentChunk.id unset in references, as DocumentReference's description says", async () => {
    expect(schemaProperties("DocumentReference").documentChunk?.description).toContain("The `document_chunk.id` field is not set and will be empty.");
    const body = (await (await answerQuery({ query: "How do I revoke an API key?" })).json()) as {
      answer: { references: { documentReference: { documentChunk: Record<string, unknown> } }[] };
    };
    expect(body.answer.references.length).toBeGreaterThan(0);
    for (const reference of body.answer.references) {
      expect(reference.documentReference.documentChunk).not.toHaveProperty("id");
      expect(reference.documentReference.documentChunk).toMatchObject({ parent: expect.stringMatching(/^documents\//), content: expect.any(String) });
    }
  });
});
