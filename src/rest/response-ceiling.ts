// The most page content one REST response carries, checked before any content is read.
import type { D1Reader } from "../d1/sessions.ts";
import { findContentLengths } from "../documents/read/stored-documents.ts";
import { AlmanacError } from "../errors.ts";
import type { Viewer } from "../documents/access/visibility.ts";

/**
 * 16 MiB of page content per response. A Worker has 128 MB: the rows read
 * from D1, the JSON text (indented by default) and its UTF-8 bytes are each
 * about this size, so four copies still leave room. D1 stores at most 2 MB
 * per row, so a batch of up to eight of the largest pages always fits, and
 * one page alone always does (the single GET needs no check).
 */
const MAX_RESPONSE_CONTENT_BYTES = 16 * 1024 * 1024;

/** Megabytes with one decimal, for messages. */
const megabytes = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

/**
 * Refuses a request whose pages together pass MAX_RESPONSE_CONTENT_BYTES,
 * from their stored sizes (unknown names, and pages `viewer` may not see, are left to the NOT_FOUND that follows).
 */
export async function requireWithinCeiling(db: D1Reader, names: readonly string[], viewer: Viewer): Promise<void> {
  const lengths = await findContentLengths(db, names, viewer);
  const total = names.reduce((sum, name) => sum + (lengths.get(name) ?? 0), 0);
  if (total <= MAX_RESPONSE_CONTENT_BYTES) return;
  throw new AlmanacError(
    "INVALID_ARGUMENT",
    `these ${names.length} pages come to ${megabytes(total)}, more than the ${megabytes(MAX_RESPONSE_CONTENT_BYTES)} one REST response carries; ask for fewer names per call`,
  );
}
