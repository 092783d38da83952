// Every refusal and every unexpected failure answers JSON built in one place
// (src/http/refusal.ts), never hono's plain-text 500.
import { createExecutionContext, env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { app } from "../../src/index.ts";

const STREAMABLE_HTTP = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the origin guard on /mcp", () => {
  it("refuses a rebound Host with 403 in the same JSON-RPC error shape as every other refusal", async () => {
    const loopbackOnly = { ...env, ALLOWED_HOSTS: "localhost,127.0.0.1" };
    const request = new Request("http://evil.example.com/mcp", { method: "POST", headers: STREAMABLE_HTTP, body: initialize });
    const response = await app.fetch(request, loopbackOnly, createExecutionContext());
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32000,
        message: 'PERMISSION_DENIED: Host "evil.example.com" is not served here; allowed hosts: localhost, 127.0.0.1',
        data: { status: "PERMISSION_DENIED" },
      },
    });
  });

  it("refuses a foreign Origin with 403 and tells the operator about ALLOWED_ORIGINS", async () => {
    const request = new Request("https://almanac.test/mcp", {
      method: "POST",
      headers: { ...STREAMABLE_HTTP, Origin: "https://evil.example" },
      body: initialize,
    });
    const response = await app.fetch(request, env, createExecutionContext());
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32000, message: expect.stringContaining("ALLOWED_ORIGINS"), data: { status: "PERMISSION_DENIED" } },
    });
  });
});

describe("app.onError", () => {
  it("answers an unexpected failure (D1 down on /healthz) with a JSON 500 that hides the cause, and logs the cause", async () => {
    // Regression: without app.onError hono answered "Internal Server Error" as plain text.
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    await env.DB.exec("ALTER TABLE documents RENAME TO documents_hidden_by_test");
    let response: Response;
    try {
      response = await app.fetch(new Request("https://almanac.test/healthz"), env, createExecutionContext());
    } finally {
      await env.DB.exec("ALTER TABLE documents_hidden_by_test RENAME TO documents");
    }
    expect(response.status).toBe(500);
    expect(response.headers.get("Content-Type")).toMatch(/^application\/json/);
    const text = await response.text();
    expect(text).not.toContain("documents");
    expect(JSON.parse(text)).toEqual({
      error: { code: 500, status: "INTERNAL", message: "the server failed to handle this request; try again, and report it if it persists" },
    });
    expect(logged).toHaveBeenCalledWith("GET /healthz failed:", expect.objectContaining({ message: expect.stringContaining("no such table: documents") }));
  });
});
