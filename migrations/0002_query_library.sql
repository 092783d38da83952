-- The query library's index: one row per entry, its metadata in D1 for search,
-- its template and notes in the TEMPLATES KV namespace under `body_key`.
--
-- `body_key` names the content (id + content hash), so an ingestion first
-- writes new KV values nobody reads yet, then switches the rows in one D1
-- batch, then deletes the values no row names any more: a reader sees either
-- the old entry or the new one, never metadata of one with the template of
-- the other, and a run that fails part way leaves the previous library serving.

CREATE TABLE library_entries (
  id TEXT PRIMARY KEY,                   -- family/service/slug, from the file path
  library TEXT NOT NULL,                 -- who owns the entry: the default library or a named user library
  title TEXT NOT NULL,
  verb TEXT NOT NULL CHECK (verb IN ('select', 'mutation', 'lifecycle')),
  status TEXT NOT NULL CHECK (status IN ('stable', 'draft', 'deprecated')),
  metadata TEXT NOT NULL,                -- JSON: every front-matter field, normalised (src/library/entry.ts EntryMetadata)
  body_key TEXT NOT NULL,                -- TEMPLATES key of {"template", "notes"}
  content_hash TEXT NOT NULL,            -- SHA-256 of the whole entry; unchanged entries are left alone
  update_time TEXT NOT NULL              -- when the content last changed (Date.toISOString())
);
CREATE INDEX library_entries_by_library ON library_entries (library);
