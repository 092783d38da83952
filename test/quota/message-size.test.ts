// The size limit on POST /mcp: checked before anything reads the body.
import { createExecutionContext, env } from "cloudflare:test";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { createApiKey } from "../../src/auth/key-store.ts";
import { app } from "../../src/index.ts";
import { MAX_MESSAGE_BYTES, readJsonRpcMessage } from "../../src/mcp/json-rpc-message.ts";
import { jsonRpcErrorHandler } from "../../src/mcp/routes.ts";
import { MCP_URL, answerQuery, post } from "../support/mcp-http.ts";

const STREAMABLE_HTTP = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };

/** A batch of answer_query calls whose JSON is at least `bytes` long. */
function answerBatchOf(bytes: number) {
  const query = "q".repeat(64 * 1024);
  return Array.from({ length: Math.ceil(bytes / query.length) }, (_, i) => answerQuery(i + 1, query));
}

/** A body without Content-Length that produces up to `total` bytes of JSON-ish text, on demand, and counts what was pulled. */
function meteredStream(total: number, chunkBytes = 64 * 1024) {
  const meter = { pulled: 0 };
  const chunk = new TextEncoder().encode(" ".repeat(chunkBytes));
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (meter.pulled >= total) return controller.close();
      meter.pulled += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  return { stream, meter };
}

describe("the JSON-RPC message size limit on /mcp", () => {
  it("is the 4 MiB the agents MCP transport accepts", () => {
    expect(MAX_MESSAGE_BYTES).toBe(4 * 1024 * 1024);
  });

  it("refuses a body over the limit with 413 naming the limit, before the quota gate reads or charges it", async () => {
    // Regression: the gate read the whole body first; a caller with no quota got 429 for it, after buffering it all.
    const { key } = await createApiKey(env.DB, { label: "big-body", answerPerMinute: 0 });
    const response = await post(answerBatchOf(MAX_MESSAGE_BYTES + 1), { "X-Goog-Api-Key": key });
    expect(response.status).toBe(413);
    expect(response.headers.has("RateLimit-Limit")).toBe(false);
    expect(await response.json()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32000,
        message:
          "INVALID_ARGUMENT: the JSON-RPC message is larger than 4194304 bytes (4 MiB), the most this MCP server accepts; send a smaller message, or split a batch into several requests",
        data: { status: "INVALID_ARGUMENT", maxBytes: 4194304 },
      },
    });
  });

  it("stops reading a body without Content-Length once it passes the limit", async () => {
    const { stream, meter } = meteredStream(4 * MAX_MESSAGE_BYTES);
    const request = new Request(MCP_URL, { method: "POST", headers: STREAMABLE_HTTP, body: stream });
    expect(request.headers.has("Content-Length")).toBe(false);
    const response = await app.fetch(request, env, createExecutionContext());
    expect(response.status).toBe(413);
    expect(meter.pulled).toBeGreaterThan(MAX_MESSAGE_BYTES);
    expect(meter.pulled).toBeLessThan(MAX_MESSAGE_BYTES + 4 * 64 * 1024);
  });

  it("accepts a body of exactly the limit", async () => {
    const echo = new Hono<{ Bindings: Env }>();
    // The reader throws its refusal; /mcp's onError answers it.
    echo.onError(jsonRpcErrorHandler);
    echo.post("/mcp", readJsonRpcMessage(), (c) => c.json(c.get("jsonRpcMessage")));
    const message = JSON.stringify(answerQuery(1));
    const exactly = message + " ".repeat(MAX_MESSAGE_BYTES - message.length);
    const admitted = await echo.request("/mcp", { method: "POST", headers: STREAMABLE_HTTP, body: exactly }, env);
    expect(admitted.status).toBe(200);
    expect(await admitted.json()).toMatchObject({ answerQueryCalls: 1, requestIds: [1], batch: false });
    const over = await echo.request("/mcp", { method: "POST", headers: STREAMABLE_HTTP, body: `${exactly} ` }, env);
    expect(over.status).toBe(413);
    expect(await over.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32000, data: { status: "INVALID_ARGUMENT", maxBytes: MAX_MESSAGE_BYTES } } });
  });
});
