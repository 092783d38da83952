// A streaming reader of tar archives (POSIX ustar, pax extended headers and
// GNU long names: what `git archive`, GitHub and GitLab produce) over Web
// Streams, so it runs in a Worker as in the CLI. Our own rather than a
// library: the reader is small, and the checks that make hostile archives
// safe (a header's declared size weighed against the budget before its body
// is read, links never followed) belong inside its loop. Measured against
// modern-tar, the maintained Web Streams reader (the others read a whole
// buffer): it reads on past the end-of-archive block to the stream's end (a
// gzip of zeros was decompressed to the ratio cap, 447 MiB, where this stops
// at the first block), its errors name no byte offset, and in Node it stalled
// reading a body after skipping another as its docs say (cancelling it).
import { concatBytes } from "../../text/bytes.ts";

const BLOCK = 512;

/** What a tar entry is; only files carry content Almanac reads. */
export type TarEntryType = "file" | "directory" | "symlink" | "hardlink" | "other";

/** One entry's header: its path as the archive names it, what it is, and its size. */
export interface TarEntry {
  path: string;
  type: TarEntryType;
  size: number;
  /** Where a symlink or hardlink points ("" for other entries). */
  linkTarget: string;
}

/** An archive that is not a tar, or is cut short; the message says which and where. */
class TarFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TarFormatError";
  }
}

/**
 * Exact-length reads over a byte stream, counting every byte consumed (the
 * archive's expanded size, headers and padding included).
 */
class ByteReader {
  consumed = 0;
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private buffered: Uint8Array = new Uint8Array(0);

  constructor(stream: ReadableStream<Uint8Array>) {
    this.reader = stream.getReader();
  }

  /** Exactly `length` bytes, or null at a clean end of stream before any of them. */
  async read(length: number): Promise<Uint8Array | null> {
    const parts: Uint8Array[] = [];
    let have = 0;
    while (have < length) {
      if (this.buffered.byteLength === 0) {
        const { done, value } = await this.reader.read();
        if (done) {
          if (have === 0) return null;
          throw new TarFormatError(`the archive ends in the middle of an entry (after ${this.consumed} bytes); the download may be cut short`);
        }
        this.buffered = value;
        continue;
      }
      const take = Math.min(length - have, this.buffered.byteLength);
      parts.push(this.buffered.subarray(0, take));
      this.buffered = this.buffered.subarray(take);
      have += take;
      this.consumed += take;
    }
    return parts.length === 1 ? (parts[0] as Uint8Array) : concatBytes(parts, length);
  }

  /** Consumes `length` bytes without keeping them. */
  async skip(length: number): Promise<void> {
    let left = length;
    while (left > 0) {
      if (this.buffered.byteLength === 0) {
        const { done, value } = await this.reader.read();
        if (done) throw new TarFormatError(`the archive ends in the middle of an entry (after ${this.consumed} bytes); the download may be cut short`);
        this.buffered = value;
        continue;
      }
      const take = Math.min(left, this.buffered.byteLength);
      this.buffered = this.buffered.subarray(take);
      left -= take;
      this.consumed += take;
    }
  }

  /** Stops reading: the rest of the stream is never decompressed or downloaded. */
  async cancel(): Promise<void> {
    await this.reader.cancel().catch(() => undefined);
  }
}


const latin1 = new TextDecoder("latin1");
const utf8 = new TextDecoder("utf-8");

/** A NUL-terminated header field. */
function field(header: Uint8Array, start: number, length: number, decoder: TextDecoder = utf8): string {
  const bytes = header.subarray(start, start + length);
  const end = bytes.indexOf(0);
  return decoder.decode(end === -1 ? bytes : bytes.subarray(0, end));
}

/** An octal number field, or GNU's base-256 form (high bit set) for sizes past 8 GiB. */
function numberField(header: Uint8Array, start: number, length: number): number {
  const first = header[start] ?? 0;
  if (first & 0x80) {
    let value = first & 0x7f;
    for (let i = start + 1; i < start + length; i += 1) value = value * 256 + (header[i] ?? 0);
    return value;
  }
  const text = field(header, start, length, latin1).trim();
  return text === "" ? 0 : Number.parseInt(text, 8);
}

function checksumMatches(header: Uint8Array): boolean {
  const stored = numberField(header, 148, 8);
  let sum = 0;
  for (let i = 0; i < BLOCK; i += 1) sum += i >= 148 && i < 156 ? 0x20 : (header[i] ?? 0);
  return sum === stored;
}

function typeOf(flag: string): TarEntryType {
  if (flag === "0" || flag === "" || flag === "7") return "file";
  if (flag === "5") return "directory";
  if (flag === "2") return "symlink";
  if (flag === "1") return "hardlink";
  return "other";
}

/** The records of a pax extended header: `<length> <key>=<value>\n`, repeated. */
function paxRecords(body: Uint8Array): Map<string, string> {
  const records = new Map<string, string>();
  const text = utf8.decode(body);
  let at = 0;
  while (at < text.length) {
    const space = text.indexOf(" ", at);
    if (space === -1) break;
    const length = Number.parseInt(text.slice(at, space), 10);
    if (!Number.isFinite(length) || length <= 0) break;
    // The length counts bytes, the text is decoded: cut the record at its newline instead.
    const newline = text.indexOf("\n", space);
    if (newline === -1) break;
    const record = text.slice(space + 1, newline);
    const equals = record.indexOf("=");
    if (equals > 0) records.set(record.slice(0, equals), record.slice(equals + 1));
    at = newline + 1;
  }
  return records;
}

/** Metadata headers (pax, GNU long names) are small; anything larger is not a real archive's. */
const MAX_METADATA_BYTES = 1024 * 1024;

/** What a caller decides per entry: keep its bytes, or let the reader skip them. */
type EntryDecision = "read" | "skip";

/**
 * Reads the tar `stream` entry by entry. For each entry `decide` is called
 * with its header (and the bytes consumed so far) before its body is read; it
 * returns "read" to receive the body in `onBody`, "skip" to pass over it, or
 * throws to stop: the stream is then cancelled, so nothing more is
 * downloaded or decompressed. Stops at the first all-zero block (the end of
 * the archive). Throws TarFormatError when the bytes are not a tar archive.
 */
export async function readTar(
  stream: ReadableStream<Uint8Array>,
  decide: (entry: TarEntry, consumed: number) => EntryDecision,
  onBody: (entry: TarEntry, body: Uint8Array) => void,
): Promise<{ consumed: number }> {
  const bytes = new ByteReader(stream);
  try {
    let longPath: string | undefined;
    let longLink: string | undefined;
    let pax = new Map<string, string>();
    for (;;) {
      const header = await bytes.read(BLOCK);
      if (header === null || header.every((byte) => byte === 0)) break;
      if (!checksumMatches(header)) {
        throw new TarFormatError(`not a tar archive: the header at byte ${bytes.consumed - BLOCK} fails its checksum; give a .tar.gz or .tar of the repository`);
      }
      const flag = field(header, 156, 1, latin1);
      const size = numberField(header, 124, 12);
      if (flag === "x" || flag === "g" || flag === "L" || flag === "K") {
        if (size > MAX_METADATA_BYTES) throw new TarFormatError(`a metadata header of ${size} bytes at byte ${bytes.consumed - BLOCK}; real archives' are a few hundred bytes`);
        const body = (await bytes.read(paddedSize(size)))?.subarray(0, size) ?? new Uint8Array(0);
        // Global headers ("g", GitHub's commit id) change nothing Almanac reads.
        if (flag === "x") pax = paxRecords(body);
        if (flag === "L") longPath = field(body, 0, body.byteLength);
        if (flag === "K") longLink = field(body, 0, body.byteLength);
        continue;
      }
      const prefix = field(header, 345, 155);
      const name = field(header, 0, 100);
      const isUstar = field(header, 257, 5, latin1) === "ustar";
      const entry: TarEntry = {
        path: pax.get("path") ?? longPath ?? (isUstar && prefix ? `${prefix}/${name}` : name),
        type: typeOf(flag),
        size: pax.has("size") ? Number(pax.get("size")) : size,
        linkTarget: pax.get("linkpath") ?? longLink ?? field(header, 157, 100),
      };
      pax = new Map();
      longPath = undefined;
      longLink = undefined;
      // Only files have a body; a link's or a folder's size field is ignored, as tar does.
      const bodySize = entry.type === "file" || entry.type === "other" ? entry.size : 0;
      if (!Number.isSafeInteger(bodySize) || bodySize < 0) throw new TarFormatError(`the entry ${entry.path} declares an impossible size`);
      if (decide(entry, bytes.consumed) === "read" && entry.type === "file") {
        const body = await bytes.read(paddedSize(bodySize));
        onBody(entry, body?.subarray(0, bodySize) ?? new Uint8Array(0));
      } else {
        await bytes.skip(paddedSize(bodySize));
      }
    }
    return { consumed: bytes.consumed };
  } finally {
    await bytes.cancel();
  }
}

function paddedSize(size: number): number {
  return Math.ceil(size / BLOCK) * BLOCK;
}
