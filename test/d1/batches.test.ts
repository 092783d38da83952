// Batch and statement sizes come from D1's documented limits, so an
// ingestion that works locally also fits a deployed database.
import { describe, expect, it } from "vitest";
import { D1_BATCH_LIMITS, jsonRows, planBatches, utf8Bytes } from "../../src/d1/batches.ts";
import { D1_LIMITS, MAX_BATCH_BYTES, rowsPerInsert } from "../../src/d1/limits.ts";

const group = (name: string, statements: number, bytes: number) => ({ statements: Array.from({ length: statements }, (_, i) => `${name}${i}`), bytes });

describe("batch sizes from D1's limits", () => {
  it("derives every size from the documented limits", () => {
    expect(D1_LIMITS).toMatchObject({ boundParameters: 100, statementBytes: 100_000, rowBytes: 2_000_000, queriesPerInvocation: 50 });
    expect(D1_BATCH_LIMITS).toEqual({ statements: 50, bytes: 4_000_000 });
    expect(MAX_BATCH_BYTES).toBe(2 * D1_LIMITS.rowBytes);
    // Chunk rows have six columns: sixteen rows bind 96 parameters, seventeen would bind 102.
    expect(rowsPerInsert(6)).toBe(16);
    expect(rowsPerInsert(6) * 6).toBeLessThanOrEqual(D1_LIMITS.boundParameters);
  });

  it("packs whole groups in order and never splits one", () => {
    const batches = planBatches([group("a", 20, 10), group("b", 20, 10), group("c", 20, 10), group("d", 5, 10)], { statements: 50, bytes: 1000 });
    expect(batches.map((batch) => batch.length)).toEqual([40, 25]);
    expect(batches[0]?.[0]).toBe("a0");
    expect(batches[1]?.[0]).toBe("c0");
  });

  it("starts a new batch when the bytes would pass the limit", () => {
    const batches = planBatches([group("a", 2, 600), group("b", 2, 600), group("c", 2, 300)], { statements: 50, bytes: 1000 });
    expect(batches.map((batch) => batch.join(","))).toEqual(["a0,a1", "b0,b1,c0,c1"]);
  });

  it("gives a group larger than a batch a batch of its own", () => {
    const batches = planBatches([group("a", 1, 10), group("huge", 60, 10), group("b", 1, 10)], { statements: 50, bytes: 1000 });
    expect(batches.map((batch) => batch.length)).toEqual([1, 60, 1]);
  });

  it("counts UTF-8 bytes as D1 does", () => {
    expect(utf8Bytes("abc")).toBe(3);
    expect(utf8Bytes("é")).toBe(2);
    expect(utf8Bytes("€")).toBe(3);
    expect(utf8Bytes("🙂")).toBe(4);
    expect(utf8Bytes("a🙂é")).toBe(new TextEncoder().encode("a🙂é").byteLength);
  });

  it("splits rows into JSON arrays within a byte budget, every row once and in order, a row over the budget alone", () => {
    const rows = Array.from({ length: 50 }, (_, i) => [`name-${i}`, i % 2 ? "é" : 'q"uote', i]);
    const parts = jsonRows(rows, 200);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) {
      expect(part.bytes).toBe(utf8Bytes(part.json));
      expect(part.bytes).toBeLessThanOrEqual(200);
      expect(JSON.parse(part.json)).toHaveLength(part.rows);
    }
    expect(parts.flatMap((part) => JSON.parse(part.json) as unknown[])).toEqual(rows);
    const huge = jsonRows([["small"], ["x".repeat(500)], ["small"]], 200);
    expect(huge.map((part) => part.rows)).toEqual([1, 1, 1]);
    expect(jsonRows([], 200)).toEqual([]);
  });
});
