// The same gate for the REST facade (POST /v1:answerQuery): Google error bodies.
import { env } from "cloudflare:test";
import { Hono } from "hono";
import { describe, expect, it, vi } from "vitest";
import { authenticateCaller } from "../../src/http/authenticate.ts";
import { createApiKey } from "../../src/auth/key-store.ts";
import { errorHandler } from "../../src/http/error-handler.ts";
import { restAnswerQuota } from "../../src/rest/answer-query.ts";
import { awayFromMinuteEnd } from "../support/clock.ts";

// A stand-in for the facade's route: what matters here is the middleware in front of it.
const app = new Hono<{ Bindings: Env }>();
app.onError(errorHandler);
app.post("/answer", authenticateCaller(), restAnswerQuota(), (c) => c.json({ answerText: "…" }));
app.post("/invalid", authenticateCaller(), restAnswerQuota(), (c) =>
  c.json({ error: { code: 400, message: "query is required", status: "INVALID_ARGUMENT" } }, 400),
);

const answer = (headers: Record<string, string>, path = "/answer") => app.request(path, { method: "POST", headers, body: "{}" }, env);

describe("restAnswerQuota", () => {
  it("charges one call per request and answers 429 RESOURCE_EXHAUSTED with Google's error body", async () => {
    await awayFromMinuteEnd();
    const { key } = await createApiKey(env.DB, { label: "rest", answerPerMinute: 2 });
    const responses = await Promise.all(Array.from({ length: 6 }, () => answer({ "X-Goog-Api-Key": key })));
    expect(responses.map((response) => response.status).sort()).toEqual([200, 200, 429, 429, 429, 429]);
    const refused = responses.find((response) => response.status === 429) as Response;
    expect(refused.headers.get("Retry-After")).toMatch(/^\d+$/);
    expect(refused.headers.get("RateLimit-Limit")).toBe("2");
    expect(await refused.json()).toEqual({
      error: { code: 429, status: "RESOURCE_EXHAUSTED", message: expect.stringMatching(/^answer_query quota exhausted: .*Use search_documents instead/) },
    });
    const admitted = responses.find((response) => response.status === 200) as Response;
    expect(admitted.headers.get("RateLimit-Limit")).toBe("2");
  });

  it("does not charge a request the handler rejects as invalid", async () => {
    await awayFromMinuteEnd();
    const { key } = await createApiKey(env.DB, { label: "rest-invalid", answerPerMinute: 1 });
    expect((await answer({ "X-Goog-Api-Key": key }, "/invalid")).status).toBe(400);
    expect((await answer({ "X-Goog-Api-Key": key })).status).toBe(200);
  });

  it("fails closed: when the quota check throws, the request is refused with 500 INTERNAL instead of answered", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const misconfigured = { ...env, QUOTA_PUBLIC_ANSWER_PER_MINUTE: "ten" };
    const response = await app.request("/answer", { method: "POST", headers: { "CF-Connecting-IP": "198.51.100.9" }, body: "{}" }, misconfigured);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({
      error: { code: 500, status: "INTERNAL", message: 'QUOTA_PUBLIC_ANSWER_PER_MINUTE is "ten"; it must be a whole number ≥ 0' },
    });
    expect(logged).toHaveBeenCalledWith("POST /answer failed:", expect.stringContaining("QUOTA_PUBLIC_ANSWER_PER_MINUTE"));
    logged.mockRestore();
  });

  it("answers an unknown key with 401 UNAUTHENTICATED in Google's error body", async () => {
    const response = await answer({ Authorization: "Bearer alm_nope" });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      error: { code: 401, status: "UNAUTHENTICATED", message: expect.stringContaining("is not valid on this server (unknown key)") },
    });
  });

  it("names the Bearer scheme in WWW-Authenticate on a 401 in Google's format too", async () => {
    const response = await answer({ Authorization: "Bearer alm_nope" });
    expect(response.headers.get("WWW-Authenticate")).toBe('Bearer realm="almanac"');
  });
});
