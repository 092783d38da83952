import { describe, expect, it } from "vitest";
import { formatDuration } from "../../src/quota/gate.ts";

describe("formatDuration", () => {
  // Regression: a refusal at the very start of a minute said "resets in 1 min" while every other per-minute refusal counts seconds.
  it("reads a whole minute window in seconds", () => {
    expect(formatDuration(60)).toBe("60 s");
    expect(formatDuration(42)).toBe("42 s");
  });

  it("reads longer waits in minutes and hours", () => {
    expect(formatDuration(61)).toBe("2 min");
    expect(formatDuration(3_780)).toBe("1 h 3 min");
  });
});
