-- Sources kept fresh by their origin's pushes (issue 38).
--
-- A source's webhook secret is never stored: it is derived from the Worker
-- secret HOOK_KEY and the source's hook_salt (src/sources/hook-secrets.ts), so
-- this table holds nothing a reader of the database could sign a push with.
-- A new salt (`npm run sources -- hook <name>`) makes a new secret and
-- invalidates the old one.
ALTER TABLE sources ADD COLUMN hook_salt TEXT;
ALTER TABLE sources ADD COLUMN hook_set_time INTEGER;
-- The last verified push, and what the run that took it did.
ALTER TABLE sources ADD COLUMN last_push_time INTEGER;
ALTER TABLE sources ADD COLUMN last_push_commit TEXT;
-- Of the last run: pages read and pages written (staged anew), and, when it
-- published a push, milliseconds from that push's arrival to publication.
ALTER TABLE sources ADD COLUMN pages_read INTEGER;
ALTER TABLE sources ADD COLUMN pages_written INTEGER;
ALTER TABLE sources ADD COLUMN push_to_published_ms INTEGER;

-- Verified pushes waiting for a run, and the run that took them. A run takes
-- every push not yet taken when it begins (a burst of pushes is one run); a
-- push arriving while a run is going is taken by the run started when it ends.
CREATE TABLE source_pushes (
  id INTEGER PRIMARY KEY,
  source TEXT NOT NULL,
  received_time INTEGER NOT NULL,
  provider TEXT NOT NULL,
  commit_id TEXT,
  -- JSON: {"paths": [...]} changed paths (added, modified or removed), or {"urls": [...]}; {} asks for a whole run.
  changes TEXT NOT NULL DEFAULT '{}',
  run_id TEXT
);
CREATE INDEX source_pushes_pending ON source_pushes (source, run_id);

-- Deliveries already accepted (a provider's delivery id, or a hash of the
-- signed request): the same one again is a replay and is refused. Rows older
-- than the replay window are swept, since an older request is refused by its time.
CREATE TABLE hook_deliveries (
  source TEXT NOT NULL,
  delivery TEXT NOT NULL,
  received_time INTEGER NOT NULL,
  PRIMARY KEY (source, delivery)
) WITHOUT ROWID;
