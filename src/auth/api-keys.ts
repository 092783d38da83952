// API keys as a domain: how keys and their ids look, how a key is hashed, and
// what a stored key carries. Shared by the Worker and `npm run keys`.
import { sha256Hex, toHex } from "../hash.ts";

/**
 * The tiers a key can be on. `standard` keys get the QUOTA_ANSWER_* limits;
 * `public` keys are identified (and revocable) but limited like anonymous
 * callers, with the QUOTA_PUBLIC_ANSWER_* limits. Per-key limits beat both.
 */
export const KEY_TIERS = ["standard", "public"] as const;

export type KeyTier = (typeof KEY_TIERS)[number];

/** The tier of a key created without `--tier`. */
export const DEFAULT_KEY_TIER: KeyTier = "standard";

/** A key as stored: everything but the key itself, which is never stored. */
export interface ApiKeyRecord {
  id: string;
  label: string;
  tier: string;
  /** This key's own limits; null means the tier's. */
  answerPerMinute: number | null;
  answerPerDay: number | null;
  /** The audiences whose restricted data sources the key sees (src/documents/access/visibility.ts); empty: public ones only. */
  audiences: string[];
  /** This key's own search and get limits per minute (search_documents, get_documents and their REST methods); null means the tier's. */
  searchPerMinute: number | null;
  getPerMinute: number | null;
  createdAt: string;
  revokedAt: string | null;
}

/**
 * Prefix of every key Almanac issues. It makes a leaked key recognisable to
 * secret scanners and to people, and tells a key apart from a key id.
 */
const KEY_PREFIX = "alm_";

/** 256 random bits: an unsalted SHA-256 of that much entropy cannot be reversed by guessing. */
const KEY_BYTES = 32;

/** Key ids are public (`keys list` prints them), so 48 random bits only need to avoid collisions. */
const ID_BYTES = 6;

const KEY_ID_PATTERN = /^key_[0-9a-f]{12}$/;

/** Whether `value` is a key id (`key_3f9c2a1b7d4e`) rather than a key. */
export function isKeyId(value: string): boolean {
  return KEY_ID_PATTERN.test(value);
}

/** Whether `value` names a tier, so that a typo in `--tier` is refused instead of stored. */
export function isKeyTier(value: string): value is KeyTier {
  return (KEY_TIERS as readonly string[]).includes(value);
}

/**
 * A new random key and its public id.
 *
 * @example const { key, id } = generateApiKey(); // key "alm_Vq3…" (47 chars), id "key_3f9c2a1b7d4e"
 */
export function generateApiKey(): { key: string; id: string } {
  const key = KEY_PREFIX + base64Url(crypto.getRandomValues(new Uint8Array(KEY_BYTES)));
  const id = `key_${toHex(crypto.getRandomValues(new Uint8Array(ID_BYTES)))}`;
  return { key, id };
}

/** Lower-case hex SHA-256 of a key: the only form in which a key is stored or looked up. */
export async function hashApiKey(key: string): Promise<string> {
  return sha256Hex(key);
}

function base64Url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
}
