-- Private documentation (issue 37). A data source (the host its pages are
-- filed under) is public while it has no row here; with rows it is
-- restricted to those audiences: only a key carrying one of them sees its
-- pages, on every door (src/documents/visibility.ts). Rows are written before
-- a restricted ingestion publishes anything, so no page is ever public first.
CREATE TABLE data_source_audiences (
  data_source TEXT NOT NULL,
  audience TEXT NOT NULL,                -- a name such as team-a (src/auth/audiences.ts audienceName)
  PRIMARY KEY (data_source, audience)
) WITHOUT ROWID;

-- The audiences a key carries, as a JSON array of names ('[]': public sources only).
ALTER TABLE api_keys ADD COLUMN audiences TEXT NOT NULL DEFAULT '[]';

-- Who read restricted documentation: one row per request whose answer
-- carried a page (or a count) of a restricted data source. Never any page
-- content: the names of the documents returned, and where they came from.
-- Rows older than AUDIT_RETENTION_DAYS are deleted by the Cron Trigger and by
-- `npm run audit -- prune`.
CREATE TABLE audit_log (
  id INTEGER PRIMARY KEY,
  time TEXT NOT NULL,                    -- Date.toISOString()
  key_id TEXT,                           -- the caller's key id (key_…); NULL never happens today: anonymous callers see no restricted source
  audiences TEXT NOT NULL,               -- JSON array: the key's audiences that opened the restricted sources touched
  door TEXT NOT NULL,                    -- mcp, rest, web, llms.txt, markdown, sources, healthz
  tool TEXT NOT NULL,                    -- search_documents, get_documents, answer_query, resources/read, … or the route
  data_sources TEXT NOT NULL,            -- JSON array: the restricted data sources touched
  documents TEXT NOT NULL                -- JSON array: the names returned from them (empty for counts)
);
CREATE INDEX audit_log_by_time ON audit_log (time);
