import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { countDocuments } from "../../src/documents/store.ts";

describe("smoke", () => {
  it("has an empty corpus", async () => {
    expect(await countDocuments(env.DB)).toBe(0);
  });
});
