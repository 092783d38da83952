/**
 * A file's bytes as page text, or why they are not: invalid UTF-8, or a
 * binary file (a NUL byte, which no text file holds). Readers of files and
 * archives call this before preparing a page, so a stray image or a file in
 * another encoding is refused by name instead of ingested as mojibake.
 *
 * @example decodeText(new Uint8Array([0x68, 0x69])) // { text: "hi" }
 */
export function decodeText(bytes: Uint8Array): { text: string } | { problem: string } {
  const nul = bytes.indexOf(0);
  if (nul >= 0) return { problem: `is a binary file (a NUL byte at offset ${nul}), not Markdown text` };
  try {
    return { text: new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes) };
  } catch {
    return { problem: `is not valid UTF-8 (at byte ${firstInvalidByte(bytes)}); save it as UTF-8` };
  }
}

/** The offset of the first byte that does not start or continue a valid UTF-8 sequence. */
function firstInvalidByte(bytes: Uint8Array): number {
  // Binary search on the longest prefix that still decodes (a sequence cut at its end is fine with stream: true).
  let low = 0;
  let high = bytes.length;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    try {
      new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes.subarray(0, middle), { stream: true });
      low = middle;
    } catch {
      high = middle - 1;
    }
  }
  if (low < bytes.length) return low;
  // Every prefix decodes: the text ends inside a sequence, which starts at the last byte that is not a continuation byte.
  let start = bytes.length - 1;
  while (start > 0 && ((bytes[start] ?? 0) & 0xc0) === 0x80) start -= 1;
  return start;
}
