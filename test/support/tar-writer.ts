// A tiny ustar writer for tests: archives built in the test, hostile ones
// included, from plain bytes (no Node API, so workerd and Node tests share it).

/** One entry to write; `type` is the ustar type flag ("0" file, "5" folder, "2" symlink, "1" hardlink). */
export interface TestEntry {
  path: string;
  body?: string | Uint8Array;
  type?: "0" | "1" | "2" | "5" | "3";
  linkTarget?: string;
  /** Declared size when the body is left out (a header that lies, or a body streamed separately). */
  size?: number;
}

const encoder = new TextEncoder();

function octal(value: number, length: number): string {
  return `${value.toString(8).padStart(length - 1, "0")}\0`;
}

function put(block: Uint8Array, at: number, text: string): void {
  block.set(encoder.encode(text), at);
}

/** One 512-byte ustar header. */
export function tarHeader(path: string, size: number, type = "0", linkTarget = ""): Uint8Array {
  const block = new Uint8Array(512);
  put(block, 0, path.slice(0, 100));
  put(block, 100, octal(0o644, 8));
  put(block, 108, octal(0, 8));
  put(block, 116, octal(0, 8));
  put(block, 124, octal(size, 12));
  put(block, 136, octal(0, 12));
  put(block, 148, "        ");
  put(block, 156, type);
  put(block, 157, linkTarget.slice(0, 100));
  put(block, 257, "ustar\u000000");
  let sum = 0;
  for (const byte of block) sum += byte;
  put(block, 148, `${sum.toString(8).padStart(6, "0")}\0 `);
  return block;
}

function padded(bytes: Uint8Array): Uint8Array[] {
  const pad = (512 - (bytes.byteLength % 512)) % 512;
  return pad === 0 ? [bytes] : [bytes, new Uint8Array(pad)];
}

/** A pax extended header carrying `path` (for paths past ustar's 100 bytes). */
function paxHeader(path: string): Uint8Array[] {
  const record = (key: string, value: string) => {
    const rest = ` ${key}=${value}\n`;
    let length = rest.length + 2;
    while (`${length}${rest}`.length !== length) length += 1;
    return `${length}${rest}`;
  };
  const body = encoder.encode(record("path", path));
  return [tarHeader("PaxHeader", body.byteLength, "x"), ...padded(body)];
}

/** The blocks of a tar archive holding `entries`, ended by two zero blocks. */
export function tarBlocks(entries: readonly TestEntry[], end = true): Uint8Array[] {
  const blocks: Uint8Array[] = [];
  for (const entry of entries) {
    const body = typeof entry.body === "string" ? encoder.encode(entry.body) : (entry.body ?? new Uint8Array(0));
    const type = entry.type ?? "0";
    if (encoder.encode(entry.path).byteLength > 100) blocks.push(...paxHeader(entry.path));
    blocks.push(tarHeader(entry.path, entry.size ?? (type === "0" ? body.byteLength : 0), type, entry.linkTarget));
    if (type === "0" && body.byteLength > 0) blocks.push(...padded(body));
  }
  if (end) blocks.push(new Uint8Array(1024));
  return blocks;
}

/** A stream of `blocks`, gzipped with the platform's CompressionStream unless `gzip` is false. */
export function archiveStream(blocks: readonly Uint8Array[], gzip = true): ReadableStream<Uint8Array> {
  const tar = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const block of blocks) controller.enqueue(block);
      controller.close();
    },
  });
  return gzip ? tar.pipeThrough(new CompressionStream("gzip") as unknown as ReadableWritablePair<Uint8Array, Uint8Array>) : tar;
}

/** The whole .tar.gz as bytes. */
export async function archiveBytes(blocks: readonly Uint8Array[], gzip = true): Promise<Uint8Array> {
  return new Uint8Array(await new Response(archiveStream(blocks, gzip)).arrayBuffer());
}
