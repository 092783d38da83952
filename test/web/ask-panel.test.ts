// The ask panel as a plain HTML form: POST /try/ask, through answer_query's
// own quota gate, with a key from the form's key field.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createApiKey } from "../../src/auth/key-store.ts";
import { answerWithSources } from "../../src/documents/answer/answer-query.ts";
import { answerAllowance } from "../../src/quota/gate.ts";
import { sectionLink } from "../../src/tools/search-documents.ts";
import { loadCorpus } from "../support/corpus.ts";
import { awayFromMinuteEnd } from "../support/clock.ts";
import { answerQuery, openSession, post } from "../support/mcp-http.ts";
import { ORIGIN, attributes, getPage, postForm, text, texts } from "../support/landing-page.ts";

beforeAll(async () => {
  await loadCorpus();
});

const QUESTION = "How is the answer_query quota counted?";

async function newKey(label: string, limits: { answerPerMinute?: number; answerPerDay?: number }) {
  const { key, record } = await createApiKey(env.DB, { label, ...limits });
  const caller = { kind: "key" as const, keyId: record.id, label, tier: record.tier, answerPerMinute: record.answerPerMinute, answerPerDay: record.answerPerDay, audiences: [] };
  return { key, remaining: async () => (await answerAllowance(env, caller)).windows.map((window) => window.remaining) };
}

describe("an answer", () => {
  it("shows answer_query's answer with a numbered marker after each cited span, linked to its reference's section", async () => {
    const { key } = await newKey("ask-answer", { answerPerDay: 10 });
    const { response, html } = await postForm("/try/ask", { query: QUESTION, key });
    expect(response.status).toBe(200);
    const { answer, sources } = await answerWithSources(env.DB, { query: QUESTION });
    expect(answer.references.length).toBeGreaterThan(0);
    const markers = await texts(html, "#ask .answer sup a");
    expect(markers.length).toBe(answer.citations.length);
    expect(new Set(markers)).toEqual(new Set(answer.references.map((_, index) => `[${index + 1}]`)));
    const targets = await attributes(html, "#ask .answer sup a", "href");
    expect(new Set(targets)).toEqual(new Set(answer.references.map((_, index) => `#ref-${index + 1}`)));
    expect(await attributes(html, "#ask .references li", "id")).toEqual(answer.references.map((_, index) => `ref-${index + 1}`));
    // A section split over chunks is linked at its heading's anchor (sectionLink drops the "-part-2" of its later chunks).
    expect(await attributes(html, "#ask .references li a", "href")).toEqual(sources.map((source) => sectionLink(source.document.uri, source.id)));
    expect(await texts(html, "#ask .references li code")).toEqual(answer.references);
    // The words are the answer's own, with Markdown's backticks shown as code.
    const shown = (await texts(html, "#ask .answer p")).join(" ").replace(/\[\d+\]/g, "");
    expect(shown.replace(/\s+/g, "")).toBe(answer.answerText.replaceAll("`", "").replaceAll("**", "").replace(/\s+/g, ""));
  });

  it("says honestly when the documentation has no answer", async () => {
    const { key } = await newKey("ask-none", { answerPerDay: 10 });
    const { response, html } = await postForm("/try/ask", { query: "zzyzx qqqwww", key });
    expect(response.status).toBe(200);
    expect(await text(html, "#ask h4")).toBe("No grounded answer");
  });

  it("keeps the question in the form but never writes the key back into the page", async () => {
    const { key } = await newKey("ask-secret", { answerPerDay: 10 });
    const { html } = await postForm("/try/ask", { query: QUESTION, key });
    expect(await text(html, "#ask-query")).toBe(QUESTION);
    expect(html).not.toContain(key);
    expect(await attributes(html, "#api-key", "value")).toEqual([null]);
  });
});

describe("the quota", () => {
  it("charges one call per question, shows what is left, and answers 429 with MCP's message and headers when spent", async () => {
    await awayFromMinuteEnd();
    const { key, remaining } = await newKey("ask-spend", { answerPerMinute: 10, answerPerDay: 2 });
    const first = await postForm("/try/ask", { query: QUESTION, key });
    expect(first.response.headers.get("RateLimit-Remaining")).toBe("1");
    expect((await texts(first.html, "#allowance tbody td")).filter((_, index) => index % 3 === 0)).toEqual(["9", "1"]);
    expect(await remaining()).toEqual([9, 1]);
    await postForm("/try/ask", { query: QUESTION, key });
    const spent = await postForm("/try/ask", { query: QUESTION, key });
    expect(spent.response.status).toBe(429);
    expect(Number(spent.response.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(spent.response.headers.get("RateLimit-Remaining")).toBe("0");
    expect(await text(spent.html, "#ask .error strong")).toBe("Your answer_query quota is spent");
    expect(await text(spent.html, "#ask .error p")).toMatch(
      /^answer_query quota exhausted: this API key \("ask-spend"\) may make 2 calls per UTC day and has none left; the daily limit resets in .* Use search_documents instead/,
    );
    expect((await attributes(spent.html, "#ask .error a", "href"))[0]).toBe(`/try/search?query=${encodeURIComponent(QUESTION).replaceAll("%20", "+")}#search`);
    expect(await remaining()).toEqual([8, 0]);
  });

  it("shares one allowance with /mcp: calls made over MCP leave none for the page", async () => {
    await awayFromMinuteEnd();
    const { key } = await newKey("ask-shared", { answerPerDay: 1 });
    const session = await openSession({ "X-Goog-Api-Key": key });
    expect((await post(answerQuery(1), session)).status).toBe(200);
    const { response } = await postForm("/try/ask", { query: QUESTION, key });
    expect(response.status).toBe(429);
  });

  it("counts anonymous visitors per address, as /mcp does", async () => {
    await awayFromMinuteEnd();
    const visitor = { "CF-Connecting-IP": "203.0.113.77" };
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await postForm("/try/ask", { query: QUESTION }, visitor)).response.status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const spent = await postForm("/try/ask", { query: QUESTION }, visitor);
    expect(await text(spent.html, "#ask .error p")).toMatch(/^answer_query quota exhausted: your IP address \(anonymous, public tier\) may make 3 calls per minute/);
    expect((await postForm("/try/ask", { query: QUESTION }, { "CF-Connecting-IP": "203.0.113.78" })).response.status).toBe(200);
  });

  it("charges nothing for a question it refuses: empty, too long, or from a foreign page", async () => {
    const { key, remaining } = await newKey("ask-refused", { answerPerDay: 5 });
    const empty = await postForm("/try/ask", { query: "   ".slice(0, 0), key });
    expect(empty.response.status).toBe(400);
    expect(await text(empty.html, "#ask .error p")).toBe("query must not be empty; ask a question or give keywords");
    const long = await postForm("/try/ask", { query: "why ".repeat(126), key });
    expect(long.response.status).toBe(400);
    const foreign = await postForm("/try/ask", { query: QUESTION, key }, { Origin: "https://evil.example" });
    expect(foreign.response.status).toBe(403);
    expect(await text(foreign.html, "main p")).toMatch(/^a page on https:\/\/evil\.example may not use this server's forms/);
    expect(foreign.html).not.toContain("answer_query allowance");
    expect((await remaining())[1]).toBe(5);
  });

  it("refuses an unknown key, and two different keys, with 401 and no answer", async () => {
    const unknown = await postForm("/try/ask", { query: QUESTION, key: "alm_not-a-key" });
    expect(unknown.response.status).toBe(401);
    expect(await text(unknown.html, "#ask .error strong")).toBe("The API key was refused");
    expect(await text(unknown.html, "#ask .error p")).toMatch(/^the API key sent in \?key= is not valid on this server \(unknown key\)/);
    expect(await text(unknown.html, "#allowance .field-error")).toMatch(/is not valid on this server/);
    const { key } = await newKey("ask-two", { answerPerDay: 5 });
    const { key: other } = await newKey("ask-two-other", { answerPerDay: 5 });
    const two = await postForm("/try/ask", { query: QUESTION, key }, { "X-Goog-Api-Key": other });
    expect(two.response.status).toBe(401);
    expect(await text(two.html, "#ask .error p")).toBe("two different API keys were sent, in X-Goog-Api-Key and ?key=; send one");
  });
});

describe("the allowance button", () => {
  it("shows a key's allowance from the form without charging it", async () => {
    const { key, remaining } = await newKey("ask-peek", { answerPerMinute: 4, answerPerDay: 40 });
    const { response, html } = await postForm("/try/allowance", { key, query: "" });
    expect(response.status).toBe(200);
    expect(await text(html, "#allowance p")).toMatch(/^API key "ask-peek"/);
    expect((await texts(html, "#allowance tbody td")).filter((_, index) => index % 3 !== 2)).toEqual(["4", "4", "40", "40"]);
    expect(await remaining()).toEqual([4, 40]);
  });

  it("opens the ask panel by address with the question filled in, charging nothing", async () => {
    const { response, html } = await getPage(`/try/ask?query=${encodeURIComponent(QUESTION)}`, { Origin: ORIGIN });
    expect(response.status).toBe(200);
    expect(await text(html, "#ask-query")).toBe(QUESTION);
    expect(await texts(html, "#ask h4")).toEqual([]);
  });
});
