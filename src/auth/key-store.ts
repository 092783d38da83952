import { AlmanacError } from "../errors.ts";
import { type ApiKeyRecord, DEFAULT_KEY_TIER, KEY_TIERS, generateApiKey, hashApiKey, isKeyTier } from "./api-keys.ts";

interface ApiKeyRow {
  id: string;
  label: string;
  tier: string;
  answer_per_minute: number | null;
  answer_per_day: number | null;
  audiences: string;
  search_per_minute: number | null;
  get_per_minute: number | null;
  created_at: string;
  revoked_at: string | null;
}

const COLUMNS = "id, label, tier, answer_per_minute, answer_per_day, search_per_minute, get_per_minute, audiences, created_at, revoked_at";

/** Labels are for people reading `keys list`; anything longer is a mistake. */
const MAX_LABEL_LENGTH = 200;

function toRecord(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    label: row.label,
    tier: row.tier,
    answerPerMinute: row.answer_per_minute,
    answerPerDay: row.answer_per_day,
    audiences: parseAudiences(row.audiences),
    searchPerMinute: row.search_per_minute,
    getPerMinute: row.get_per_minute,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

/** The stored JSON array of audience names; anything else (a hand-edited row) is no audience. */
function parseAudiences(stored: string): string[] {
  try {
    const parsed: unknown = JSON.parse(stored);
    return Array.isArray(parsed) ? parsed.filter((name): name is string => typeof name === "string") : [];
  } catch {
    return [];
  }
}

/** What `npm run keys -- create` takes. */
interface NewApiKey {
  label: string;
  tier?: string;
  answerPerMinute?: number | null;
  answerPerDay?: number | null;
  /** Checked names (visibility.ts audienceList); absent: none. */
  audiences?: readonly string[];
  searchPerMinute?: number | null;
  getPerMinute?: number | null;
}

/**
 * Creates a key and stores its hash. The returned `key` is the only copy of
 * the plaintext: show it once, it cannot be recovered.
 *
 * @example const { key, record } = await createApiKey(env.DB, { label: "ci-bot", answerPerMinute: 60 });
 */
export async function createApiKey(
  db: D1Database,
  options: NewApiKey,
  now: Date = new Date(),
): Promise<{ key: string; record: ApiKeyRecord }> {
  const label = options.label.trim();
  if (!label) throw new AlmanacError("INVALID_ARGUMENT", "a key needs a label (who or what holds it), e.g. --label ci-bot");
  if (label.length > MAX_LABEL_LENGTH) {
    throw new AlmanacError("INVALID_ARGUMENT", `the label is ${label.length} characters long; keep it under ${MAX_LABEL_LENGTH}`);
  }
  const tier = options.tier ?? DEFAULT_KEY_TIER;
  if (!isKeyTier(tier)) throw new AlmanacError("INVALID_ARGUMENT", `unknown tier "${tier}" (legal: ${KEY_TIERS.join(", ")})`);
  for (const [name, value] of [
    ["answer-per-minute", options.answerPerMinute],
    ["answer-per-day", options.answerPerDay],
    ["search-per-minute", options.searchPerMinute],
    ["get-per-minute", options.getPerMinute],
  ] as const) {
    if (value != null && !(Number.isSafeInteger(value) && value >= 0)) {
      throw new AlmanacError("INVALID_ARGUMENT", `--${name} must be a whole number ≥ 0, not ${value}`);
    }
  }
  const { key, id } = generateApiKey();
  const record: ApiKeyRecord = {
    id,
    label,
    tier,
    answerPerMinute: options.answerPerMinute ?? null,
    answerPerDay: options.answerPerDay ?? null,
    audiences: [...(options.audiences ?? [])],
    searchPerMinute: options.searchPerMinute ?? null,
    getPerMinute: options.getPerMinute ?? null,
    createdAt: now.toISOString(),
    revokedAt: null,
  };
  await db
    .prepare(
      `INSERT INTO api_keys (id, key_hash, label, tier, answer_per_minute, answer_per_day, search_per_minute, get_per_minute, audiences, created_at)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)`,
    )
    .bind(record.id, await hashApiKey(key), record.label, record.tier, record.answerPerMinute, record.answerPerDay, record.searchPerMinute, record.getPerMinute, JSON.stringify(record.audiences), record.createdAt)
    .run();
  return { key, record };
}

/** The stored key whose hash is `keyHash`, revoked or not; null when there is none. */
export async function findApiKeyByHash(db: D1Database, keyHash: string): Promise<ApiKeyRecord | null> {
  const row = await db.prepare(`SELECT ${COLUMNS} FROM api_keys WHERE key_hash = ?1`).bind(keyHash).first<ApiKeyRow>();
  return row ? toRecord(row) : null;
}

/** Every key, oldest first. */
export async function listApiKeys(db: D1Database): Promise<ApiKeyRecord[]> {
  const { results } = await db.prepare(`SELECT ${COLUMNS} FROM api_keys ORDER BY created_at, id`).all<ApiKeyRow>();
  return results.map(toRecord);
}

/**
 * Revokes the key given by its id (`key_…`) or by the key itself. Revoking
 * twice keeps the first revocation time. Returns the key as now stored, or
 * null when no key matches.
 */
export async function revokeApiKey(db: D1Database, keyOrId: string, now: Date = new Date()): Promise<ApiKeyRecord | null> {
  const keyHash = await hashApiKey(keyOrId);
  const row = await db
    .prepare(
      `UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?3)
       WHERE id = ?1 OR key_hash = ?2
       RETURNING ${COLUMNS}`,
    )
    .bind(keyOrId, keyHash, now.toISOString())
    .first<ApiKeyRow>();
  return row ? toRecord(row) : null;
}

/**
 * Gives an existing key (by id or by the key itself) exactly `audiences`
 * (empty: public sources only). Takes effect on its next request; a 2025-era
 * MCP session keeps the audiences of the request that opened it. Returns the
 * key as now stored, or null when no key matches.
 */
export async function setKeyAudiences(db: D1Database, keyOrId: string, audiences: readonly string[]): Promise<ApiKeyRecord | null> {
  const row = await db
    .prepare(`UPDATE api_keys SET audiences = ?3 WHERE id = ?1 OR key_hash = ?2 RETURNING ${COLUMNS}`)
    .bind(keyOrId, await hashApiKey(keyOrId), JSON.stringify([...audiences]))
    .first<ApiKeyRow>();
  return row ? toRecord(row) : null;
}
