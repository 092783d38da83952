import { D1_LIMITS, MAX_BATCH_BYTES } from "./limits.ts";

/** Statements that must land together (one page's delete and inserts), and the bytes of values they bind. */
export interface StatementGroup<Statement> {
  statements: Statement[];
  bytes: number;
}

/** How large one batch may be. */
interface BatchLimits {
  statements: number;
  bytes: number;
}

/** What a deployed D1 database accepts in one batch (limits.ts). */
export const D1_BATCH_LIMITS: BatchLimits = { statements: D1_LIMITS.queriesPerInvocation, bytes: MAX_BATCH_BYTES };

/**
 * Packs groups into as few batches as the limits allow, in order, never
 * splitting a group: each page is written whole or not at all. A group
 * larger than a batch gets a batch of its own (D1 then judges it).
 *
 * @example planBatches([{ statements: [a, b], bytes: 10 }, { statements: [c], bytes: 5 }], { statements: 2, bytes: 100 }) // [[a, b], [c]]
 */
export function planBatches<Statement>(groups: readonly StatementGroup<Statement>[], limits: BatchLimits = D1_BATCH_LIMITS): Statement[][] {
  const batches: Statement[][] = [];
  let current: Statement[] = [];
  let bytes = 0;
  for (const group of groups) {
    const fits = current.length + group.statements.length <= limits.statements && bytes + group.bytes <= limits.bytes;
    if (!fits && current.length > 0) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(...group.statements);
    bytes += group.bytes;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/** UTF-8 bytes of a text value, as D1 counts it against its size limits. */
export function utf8Bytes(text: string): number {
  // Faster than encoding: every code unit is 1–3 bytes, a surrogate pair 4.
  let bytes = 0;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code < 0xdc00) {
      bytes += 4;
      i += 1;
    } else bytes += 3;
  }
  return bytes;
}

/** Rows of bound values as one JSON array of arrays, for a statement that reads them with json_each. */
interface JsonRows {
  json: string;
  rows: number;
  bytes: number;
}

/**
 * Rows split into JSON arrays of at most `maxBytes` each (a row larger than
 * that goes alone): a statement reading one with json_each writes thousands
 * of rows within D1's 100 bound parameters, where binding each value would
 * take a statement per few rows.
 *
 * @example jsonRows([["a", 1], ["b", 2]], 1000) // [{ json: '[["a",1],["b",2]]', rows: 2, bytes: 17 }]
 */
export function jsonRows(rows: readonly (readonly unknown[])[], maxBytes: number): JsonRows[] {
  const parts: JsonRows[] = [];
  let current: string[] = [];
  let bytes = 2;
  const flush = () => {
    if (current.length > 0) parts.push({ json: `[${current.join(",")}]`, rows: current.length, bytes });
    current = [];
    bytes = 2;
  };
  for (const row of rows) {
    const json = JSON.stringify(row);
    const rowBytes = utf8Bytes(json);
    // A row after the first brings its comma.
    if (current.length > 0 && bytes + 1 + rowBytes > maxBytes) flush();
    bytes += rowBytes + (current.length > 0 ? 1 : 0);
    current.push(json);
  }
  flush();
  return parts;
}
