import { sha256Hex } from "../hash.ts";

/**
 * A chunk's vector id: SHA-256 hex of its page name and chunk id, 64
 * characters, exactly Vectorize's limit on ids, whatever the page's name.
 *
 * @example await vectorIdOf("documents/dart.dev/language/async", "handling-errors") // "3f…" (64 hex digits)
 */
export function vectorIdOf(document: string, chunkId: string): Promise<string> {
  return sha256Hex(`${document}#${chunkId}`);
}
