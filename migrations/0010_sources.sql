-- Sources a deployed Almanac refreshes by itself (issue 20): what to read
-- (kind, url, the same options as `npm run ingest -- <kind>`), how often
-- (`every`, seconds), and the state of the last run. `run_id` is the lock: a
-- run claims the source by setting it while none is set, so two runs of one
-- source never overlap; it is cleared when the run ends.
CREATE TABLE sources (
  name TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('site', 'archive', 'llms')),
  url TEXT NOT NULL,
  options TEXT NOT NULL DEFAULT '{}',
  every INTEGER NOT NULL CHECK (every > 0),
  run_id TEXT,
  outcome TEXT CHECK (outcome IN ('running', 'succeeded', 'failed')),
  start_time INTEGER,
  end_time INTEGER,
  added INTEGER NOT NULL DEFAULT 0,
  updated INTEGER NOT NULL DEFAULT 0,
  unchanged INTEGER NOT NULL DEFAULT 0,
  removed INTEGER NOT NULL DEFAULT 0,
  skipped INTEGER NOT NULL DEFAULT 0,
  error TEXT,
  last_success_time INTEGER,
  next_due INTEGER NOT NULL
);
