/**
 * The parts of a body read chunk by chunk, joined into one array of `size`
 * bytes (the sum of the parts' lengths, which the readers count anyway to
 * enforce their caps).
 *
 * @example concatBytes([new Uint8Array([1]), new Uint8Array([2, 3])], 3) // Uint8Array [1, 2, 3]
 */
export function concatBytes(parts: readonly Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}
