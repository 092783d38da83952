// The deadline every /mcp POST is answered within, and how the Worker learns
// which requests got a real answer (for refunds), on responses built here.
import { describe, expect, it } from "vitest";
import { answerWithin } from "../../src/mcp/deadline.ts";

const encoder = new TextEncoder();

/** An SSE response whose events are written by the test, and a way to write them. */
function eventStream() {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  const response = new Response(readable, { headers: { "Content-Type": "text/event-stream" } });
  return { response, send: (text: string) => writer.write(encoder.encode(text)), close: () => writer.close() };
}

const result = (id: number, isError = false) => `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id, result: { content: [], isError } })}\n\n`;

describe("answerWithin", () => {
  it("answers 504 with an error per request when no response comes in time", async () => {
    const { response, answered } = await answerWithin(new Promise<Response>(() => {}), [1, "b"], 50);
    expect(response.status).toBe(504);
    const body = (await response.json()) as { id: unknown; error: { code: number; message: string } }[];
    expect(body.map((error) => error.id)).toEqual([1, "b"]);
    expect(body[0]?.error).toMatchObject({ code: -32603, message: expect.stringMatching(/^UNAVAILABLE: the server did not answer this request within 0.05 s/) });
    expect([...(await answered)]).toEqual([]);
  });

  it("closes a stream left on keepalives with an error for each request still waiting", async () => {
    const stream = eventStream();
    const { response, answered } = await answerWithin(Promise.resolve(stream.response), [1, 2], 100);
    void stream.send(": keepalive\n\n");
    void stream.send(result(1));
    const text = await response.text();
    expect(text).toContain(": keepalive");
    expect(text).toContain('"id":1,"result"');
    expect(text).toMatch(/data: \{"jsonrpc":"2.0","id":2,"error":\{"code":-32603/);
    expect([...(await answered)]).toEqual([1]);
  });

  it("counts a result as an answer, and neither an isError result nor an error", async () => {
    const stream = eventStream();
    const { response, answered } = await answerWithin(Promise.resolve(stream.response), [1, 2, 3], 5_000);
    // An event may arrive split across chunks.
    const first = result(1);
    void stream.send(first.slice(0, 20));
    void stream.send(first.slice(20) + result(2, true));
    void stream.send(`data: ${JSON.stringify({ jsonrpc: "2.0", id: 3, error: { code: -32602, message: "no" } })}\n\n`);
    void stream.close();
    await response.text();
    expect([...(await answered)]).toEqual([1]);
  });

  it("reads a JSON response whole and passes it on unchanged", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 7, result: { content: [] } });
    const { response, answered } = await answerWithin(Promise.resolve(Response.json(JSON.parse(body))), [7], 5_000);
    expect(await response.text()).toBe(body);
    expect([...(await answered)]).toEqual([7]);
  });

  it("passes on a refusal or a request without ids as it is, answering nothing", async () => {
    const refused = await answerWithin(Promise.resolve(new Response("{}", { status: 429, headers: { "Content-Type": "application/json" } })), [1], 5_000);
    expect(refused.response.status).toBe(429);
    expect([...(await refused.answered)]).toEqual([]);
    const notification = await answerWithin(Promise.resolve(new Response(null, { status: 202 })), [], 5_000);
    expect(notification.response.status).toBe(202);
  });
});
