-- API keys. The key itself is never stored: only its SHA-256, which is enough
-- to recognise a presented key (keys are 256-bit random, so an unsalted hash
-- cannot be reversed by guessing) and useless to anyone who reads this table.

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,                   -- public id shown by `npm run keys -- list`, e.g. key_3f9c2a1b7d4e
  key_hash TEXT NOT NULL UNIQUE,         -- lower-case hex SHA-256 of the key
  label TEXT NOT NULL,                   -- who or what holds the key, for people reading `keys list`
  tier TEXT NOT NULL DEFAULT 'standard', -- which QUOTA_* limits apply (see src/quota/limits.ts)
  answer_per_minute INTEGER CHECK (answer_per_minute IS NULL OR answer_per_minute >= 0), -- NULL: the tier's limit
  answer_per_day INTEGER CHECK (answer_per_day IS NULL OR answer_per_day >= 0),          -- NULL: the tier's limit
  created_at TEXT NOT NULL,              -- RFC 3339, UTC
  revoked_at TEXT                        -- RFC 3339, UTC; NULL while the key is valid
);
