// The shared edge (src/http): one browser guard, one argument check and one
// fault log behind /mcp, /v1 and the landing page, each transport answering
// in its own format from its own onError.
import { createExecutionContext, env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createApiKey } from "../../src/auth/key-store.ts";
import { app } from "../../src/index.ts";
import { searchDocumentsTool } from "../../src/tools/search-documents.ts";
import { toolArguments } from "../../src/web/try-request.ts";

const ORIGIN = "https://almanac.test";
const STREAMABLE_HTTP = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
const FOREIGN = { Origin: "https://evil.example" };

const fetchApp = async (request: Request, bindings: Env = env): Promise<Response> => app.fetch(request, bindings, createExecutionContext());

const toolsList = (id: number | string) => ({ jsonrpc: "2.0", id, method: "tools/list" });

afterEach(() => {
  vi.restoreAllMocks();
});

describe("one browser guard, three answers", () => {
  it("refuses a foreign Origin with 403 on /mcp (JSON-RPC, id null), /v1 (Google's body) and / (a page), each in its own words", async () => {
    const mcp = await fetchApp(new Request(`${ORIGIN}/mcp`, { method: "POST", headers: { ...STREAMABLE_HTTP, ...FOREIGN }, body: JSON.stringify(toolsList(7)) }));
    expect(mcp.status).toBe(403);
    expect(await mcp.json()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32000,
        message: 'PERMISSION_DENIED: Origin "https://evil.example" may not call this MCP server; its operator can allow it by adding it to ALLOWED_ORIGINS',
        data: { status: "PERMISSION_DENIED" },
      },
    });

    const rest = await fetchApp(new Request(`${ORIGIN}/v1/documents:searchDocumentChunks?query=x`, { headers: FOREIGN }));
    expect(rest.status).toBe(403);
    expect(await rest.json()).toEqual({
      error: {
        code: 403,
        status: "PERMISSION_DENIED",
        message: 'Origin "https://evil.example" may not call this server; its operator can allow it by adding it to ALLOWED_ORIGINS',
      },
    });

    const page = await fetchApp(new Request(`${ORIGIN}/`, { headers: FOREIGN }));
    expect(page.status).toBe(403);
    expect(page.headers.get("Content-Type")).toMatch(/^text\/html/);
    expect(await page.text()).toContain("a page on https://evil.example may not use this server&#39;s forms");
  });

  it("refuses a rebound Host with the same message everywhere", async () => {
    const loopbackOnly = { ...env, ALLOWED_HOSTS: "localhost" };
    const refused = 'Host "evil.example.com" is not served here; allowed hosts: localhost';
    const mcp = await fetchApp(new Request("http://evil.example.com/mcp", { method: "POST", headers: STREAMABLE_HTTP, body: JSON.stringify(toolsList(1)) }), loopbackOnly);
    expect(mcp.status).toBe(403);
    expect(await mcp.json()).toMatchObject({ id: null, error: { message: `PERMISSION_DENIED: ${refused}` } });
    const rest = await fetchApp(new Request("http://evil.example.com/v1/documents:searchDocumentChunks?query=x"), loopbackOnly);
    expect(await rest.json()).toMatchObject({ error: { code: 403, message: refused } });
    const page = await fetchApp(new Request("http://evil.example.com/"), loopbackOnly);
    expect(page.status).toBe(403);
    expect(await page.text()).toContain("Host &quot;evil.example.com&quot; is not served here");
  });
});

describe("refusals thrown in front of /mcp", () => {
  it("answers a refused key with a 401 JSON-RPC error for every request id of a batch, and the WWW-Authenticate challenge", async () => {
    const response = await fetchApp(
      new Request(`${ORIGIN}/mcp`, {
        method: "POST",
        headers: { ...STREAMABLE_HTTP, "X-Goog-Api-Key": "alm_not-a-key-this-server-issued" },
        body: JSON.stringify([toolsList("a"), { jsonrpc: "2.0", method: "notifications/initialized" }, toolsList(2)]),
      }),
    );
    expect(response.status).toBe(401);
    expect(response.headers.get("WWW-Authenticate")).toBe('Bearer realm="almanac"');
    const body = (await response.json()) as { id: unknown; error: { code: number; data: { status: string } } }[];
    expect(body.map((error) => error.id)).toEqual(["a", 2]);
    for (const error of body) expect(error.error).toMatchObject({ code: -32000, data: { status: "UNAUTHENTICATED" } });
  });

  it("answers a method /mcp does not serve with 405, Allow, and a JSON-RPC error with id null", async () => {
    const response = await fetchApp(new Request(`${ORIGIN}/mcp`, { method: "PUT", headers: STREAMABLE_HTTP, body: JSON.stringify(toolsList(1)) }));
    expect(response.status).toBe(405);
    expect(response.headers.get("Allow")).toBe("GET, POST, DELETE, OPTIONS");
    expect(await response.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32000, message: expect.stringMatching(/^INVALID_ARGUMENT: PUT is not served at \/mcp/) } });
  });

  it("answers a malformed message in a batch for that message's id alone, with its JSON-RPC code, not as a batch", async () => {
    const response = await fetchApp(
      new Request(`${ORIGIN}/mcp`, {
        method: "POST",
        headers: STREAMABLE_HTTP,
        body: JSON.stringify([toolsList(1), { jsonrpc: "2.0", id: 2, method: "tools/call", params: { arguments: {} } }]),
      }),
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ jsonrpc: "2.0", id: 2, error: { code: -32602, message: expect.stringContaining("messages[1]: tools/call needs params.name") } });
  });
});

describe("one argument check", () => {
  it("names every problem in a landing-page panel, as an MCP tool call does", async () => {
    const params = new URLSearchParams({ intent: "", provider: "p".repeat(101) });
    const response = await fetchApp(new Request(`${ORIGIN}/try/library?${params}`, { headers: { "CF-Connecting-IP": "198.51.100.90" } }));
    expect(response.status).toBe(400);
    const html = await response.text();
    expect(html).toContain("intent must not be empty");
    expect(html).toContain("provider: ");
  });

  it("refuses an argument the tool does not have on the landing page too, instead of ignoring it", () => {
    expect(() => toolArguments(searchDocumentsTool, { query: "keys", filters: 'data_source = "x"' })).toThrow(/unknown argument "filters"/);
  });

  it("gives a REST parameter the same message as the tool's own field", async () => {
    const response = await fetchApp(new Request(`${ORIGIN}/v1/documents:searchDocumentChunks?query=${"q".repeat(501)}`));
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { status: "INVALID_ARGUMENT", message: "query must be at most 500 characters; shorten it to the key terms" } });
  });
});

describe("an INTERNAL fault", () => {
  async function withoutApiKeys(request: () => Response | Promise<Response>): Promise<Response> {
    await env.DB.exec("ALTER TABLE api_keys RENAME TO api_keys_hidden_by_test");
    try {
      return await request();
    } finally {
      await env.DB.exec("ALTER TABLE api_keys_hidden_by_test RENAME TO api_keys");
    }
  }

  it("on /mcp is a JSON-RPC 500 for the request's id that hides the cause, logged once", async () => {
    const { key } = await createApiKey(env.DB, { label: "edge-internal" });
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const response = await withoutApiKeys(() =>
      fetchApp(new Request(`${ORIGIN}/mcp`, { method: "POST", headers: { ...STREAMABLE_HTTP, "X-Goog-Api-Key": key }, body: JSON.stringify(toolsList(9)) })),
    );
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(text).not.toContain("api_keys");
    expect(JSON.parse(text)).toMatchObject({ jsonrpc: "2.0", id: 9, error: { code: -32000, data: { status: "INTERNAL" } } });
    expect(logged).toHaveBeenCalledTimes(1);
    expect(logged).toHaveBeenCalledWith("POST /mcp failed:", expect.objectContaining({ message: expect.stringContaining("no such table: api_keys") }));
  });

  it("on /v1 is Google's 500 body, logged once", async () => {
    const { key } = await createApiKey(env.DB, { label: "edge-internal-rest" });
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const response = await withoutApiKeys(() => fetchApp(new Request(`${ORIGIN}/v1/documents:searchDocumentChunks?query=x`, { headers: { "X-Goog-Api-Key": key } })));
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({ error: { code: 500, status: "INTERNAL" } });
    expect(logged).toHaveBeenCalledTimes(1);
    expect(logged).toHaveBeenCalledWith("GET /v1/documents:searchDocumentChunks failed:", expect.objectContaining({ message: expect.stringContaining("no such table: api_keys") }));
  });
});
