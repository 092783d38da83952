/**
 * Lower-case hex of some bytes, two digits a byte.
 *
 * @example toHex(new Uint8Array([0, 171])) // "00ab"
 */
export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * Lower-case hex SHA-256 of a string, with Web Crypto (the same in workerd
 * and in Node, so the Worker and the CLI agree on every hash).
 *
 * @example await sha256Hex("abc") // "ba7816bf…"
 */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return toHex(new Uint8Array(digest));
}
