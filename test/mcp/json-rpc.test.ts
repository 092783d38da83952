import { describe, expect, it } from "vitest";
import { inspectJsonRpcBody } from "../../src/mcp/json-rpc.ts";

const call = (id: unknown, name: string) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: { query: "q" } } });

describe("inspectJsonRpcBody", () => {
  it("counts an answer_query call in a single message", () => {
    expect(inspectJsonRpcBody(JSON.stringify(call(7, "answer_query")))).toMatchObject({ answerQueryCalls: 1, requestIds: [7], batch: false });
  });

  it("counts every answer_query call in a batch and keeps every request id", () => {
    const batch = [call(1, "answer_query"), call("b", "search_documents"), call(3, "answer_query"), { jsonrpc: "2.0", method: "notifications/initialized" }];
    expect(inspectJsonRpcBody(JSON.stringify(batch))).toMatchObject({ answerQueryCalls: 2, requestIds: [1, "b", 3], batch: true });
  });

  it("does not count other tools, other methods, notifications or near-miss names", () => {
    const body = [
      call(1, "search_documents"),
      call(2, "Answer_Query"),
      { jsonrpc: "2.0", id: 3, method: "tools/list" },
      { jsonrpc: "2.0", method: "tools/call", params: { name: "answer_query" } },
      { jsonrpc: "2.0", id: 4, result: {} },
    ];
    expect(inspectJsonRpcBody(JSON.stringify(body)).answerQueryCalls).toBe(0);
  });

  it("reads the name the server will read when a key is repeated", () => {
    // JSON.parse keeps the last duplicate, exactly as the MCP transport's own parser does.
    const body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_documents","name":"answer_query"}}';
    expect(inspectJsonRpcBody(body).answerQueryCalls).toBe(1);
  });

  it("finds no calls in a body that is not JSON", () => {
    expect(inspectJsonRpcBody("{not json")).toEqual({ answerQueryCalls: 0, answerQueryIds: [], requestIds: [], batch: false });
  });
});
