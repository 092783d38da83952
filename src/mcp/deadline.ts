// Every MCP request is answered within a deadline, and the Worker learns
// which requests really got an answer (so the quota can give back the rest).
import type { JsonRpcId } from "../http/refusal.ts";

/**
 * How long a POST's requests may take, end to end. Almanac's slowest call,
 * answer_query over a large corpus, takes well under a second; 30 s is what
 * MCP clients commonly wait before giving up on their own, so a client hears
 * a clear error from the server rather than a silence it has to time out.
 */
const MCP_DEADLINE_MS = 30_000;

/** A response on its way to the client, and, once it has gone, the ids it answered with a result. */
interface WatchedResponse {
  response: Response;
  /** The request ids answered with a result that is not an `isError` tool result. */
  answered: Promise<ReadonlySet<JsonRpcId>>;
}


/**
 * Serves a POST's requests with a deadline. A JSON response is read in full
 * and passed on; an SSE stream is passed on event by event. If the deadline
 * passes first, every request still waiting gets a JSON-RPC error (-32603)
 * and the stream is closed: a client never waits on keepalives. A response
 * that cannot carry answers (202, 4xx) answers nothing.
 *
 * @example const { response, answered } = await answerWithin(serveMcp(request, env, ctx), [1, 2]);
 */
export async function answerWithin(pending: Promise<Response>, ids: readonly JsonRpcId[], deadlineMs: number = MCP_DEADLINE_MS): Promise<WatchedResponse> {
  const deadline = Date.now() + deadlineMs;
  const timedOut = () => Response.json(timeoutErrors(ids, deadlineMs), { status: 504 });
  if (ids.length === 0) return { response: await pending, answered: Promise.resolve(new Set()) };
  const response = await beforeDeadline(pending, deadline);
  if (response === null) {
    return { response: timedOut(), answered: Promise.resolve(new Set()) };
  }
  const type = response.headers.get("content-type") ?? "";
  if (!response.body || response.status >= 400) return { response, answered: Promise.resolve(new Set()) };
  if (type.includes("text/event-stream")) return watchEventStream(response, ids, deadline, deadlineMs);
  if (type.includes("application/json")) {
    const text = await beforeDeadline(response.text(), deadline);
    if (text === null) return { response: timedOut(), answered: Promise.resolve(new Set()) };
    const answered = new Set<JsonRpcId>();
    recordAnswers(parseMessages(text), new Set(ids), answered);
    return { response: new Response(text, response), answered: Promise.resolve(answered) };
  }
  return { response, answered: Promise.resolve(new Set()) };
}

/** The value, or null when the deadline comes first. */
async function beforeDeadline<T>(pending: Promise<T>, deadline: number): Promise<T | null> {
  let timer: ReturnType<typeof setTimeout> | null = null;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([pending, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Passes an SSE stream through, reading each event's JSON-RPC messages as it
 * goes. At the deadline, the requests not yet answered get errors and the
 * stream ends; the upstream (the session's Durable Object) is cancelled.
 */
function watchEventStream(response: Response, ids: readonly JsonRpcId[], deadline: number, deadlineMs: number): WatchedResponse {
  const waiting = new Set(ids);
  const answered = new Set<JsonRpcId>();
  let settle: (ids: ReadonlySet<JsonRpcId>) => void = () => {};
  const settled = new Promise<ReadonlySet<JsonRpcId>>((resolve) => {
    settle = resolve;
  });
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let pendingText = "";
  let timer: ReturnType<typeof setTimeout> | null = null;
  const finish = () => {
    if (timer !== null) clearTimeout(timer);
    settle(answered);
  };
  const transform = new TransformStream<Uint8Array, Uint8Array>({
    start(controller) {
      timer = setTimeout(() => {
        if (waiting.size > 0) {
          controller.enqueue(encoder.encode(timeoutErrors([...waiting], deadlineMs).map((error) => `event: message\ndata: ${JSON.stringify(error)}\n\n`).join("")));
        }
        controller.terminate();
        finish();
      }, Math.max(0, deadline - Date.now()));
    },
    transform(chunk, controller) {
      controller.enqueue(chunk);
      pendingText += decoder.decode(chunk, { stream: true });
      // SSE events end with a blank line; only whole events are read.
      const events = pendingText.split(/\r?\n\r?\n/);
      pendingText = events.pop() ?? "";
      for (const event of events) {
        const data = event
          .split(/\r?\n/)
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).replace(/^ /, ""))
          .join("\n");
        if (data) recordAnswers(parseMessages(data), waiting, answered);
      }
    },
    flush: finish,
  });
  // Errors in transit (the client went away, the session failed) end the watch with what was answered.
  response.body?.pipeTo(transform.writable).catch(finish);
  return { response: new Response(transform.readable, response), answered: settled };
}

function timeoutErrors(ids: readonly JsonRpcId[], deadlineMs: number) {
  const message = `UNAVAILABLE: the server did not answer this request within ${deadlineMs / 1000} s; try again, or use search_documents, which is quicker than answer_query`;
  return ids.map((id) => ({ jsonrpc: "2.0", id, error: { code: -32603, message, data: { status: "UNAVAILABLE" } } }));
}

function parseMessages(text: string): unknown[] {
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed : [parsed];
  } catch {
    return [];
  }
}

/** Marks the waiting ids these messages answer; a result that is an isError tool result is no answer. */
function recordAnswers(messages: readonly unknown[], waiting: Set<JsonRpcId>, answered: Set<JsonRpcId>): void {
  for (const message of messages) {
    if (typeof message !== "object" || message === null) continue;
    const { id, result } = message as { id?: JsonRpcId; result?: { isError?: unknown } };
    if (id === undefined || !waiting.has(id)) continue;
    waiting.delete(id);
    if (result !== undefined && result?.isError !== true) answered.add(id);
  }
}
