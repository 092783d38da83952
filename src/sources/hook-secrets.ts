/**
 * A source's webhook secret (issue 38). Verifying GitHub's or the generic
 * form's HMAC needs the secret itself, so a hash of it cannot be what is
 * stored; keeping it in D1 (even encrypted with a key D1 also holds) would
 * hand it to anyone who can read the database. So no secret is stored at
 * all: it is derived, when needed, from the Worker secret HOOK_KEY (`npx
 * wrangler secret put HOOK_KEY`, `.dev.vars` locally) and a random salt kept
 * on the source's row:
 *
 *   secret = base64url(HMAC-SHA256(HOOK_KEY, "almanac-hook/v1\n" + name + "\n" + salt))
 *
 * A database dump without HOOK_KEY signs nothing; a new salt (`npm run
 * sources -- hook <name>`) makes a new secret and the old one stops
 * verifying at once; rotating HOOK_KEY invalidates every source's secret.
 */

/** A new salt: 128 random bits, hex. */
export function newHookSalt(): string {
  return [...crypto.getRandomValues(new Uint8Array(16))].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** HOOK_KEY shorter than this is refused: the secrets are only as strong as it. */
const MIN_HOOK_KEY_LENGTH = 32;

/** Why HOOK_KEY cannot derive secrets, or null when it can. */
export function hookKeyProblem(key: string | undefined): string | null {
  if (!key) return "HOOK_KEY is not set";
  if (key.length < MIN_HOOK_KEY_LENGTH) return `HOOK_KEY is ${key.length} characters, under ${MIN_HOOK_KEY_LENGTH}`;
  return null;
}

/** The secret of source `name` with salt `salt` under HOOK_KEY `key`. */
export async function deriveHookSecret(key: string, name: string, salt: string): Promise<string> {
  const mac = await hmacSha256(new TextEncoder().encode(key), new TextEncoder().encode(`almanac-hook/v1\n${name}\n${salt}`));
  return base64url(mac);
}

/** HMAC-SHA256 of `data` under `key` (Web Crypto: the same in the Worker and in Node). */
export async function hmacSha256(key: Uint8Array, data: Uint8Array): Promise<Uint8Array> {
  const imported = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", imported, data));
}

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Gives source `name` a new salt (its secret changes, the old one stops verifying); false when there is no such source. */
export async function setHookSalt(db: D1Database, name: string, salt: string, now: number): Promise<boolean> {
  const result = await db.prepare("UPDATE sources SET hook_salt = ?1, hook_set_time = ?2 WHERE name = ?3").bind(salt, now, name).run();
  return result.meta.changes > 0;
}
