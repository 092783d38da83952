-- Documents (one row per page) and their chunks, with an FTS5 index derived
-- from the chunks table (external content + triggers), so the index can always
-- be rebuilt with: INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild');

CREATE TABLE documents (
  name TEXT PRIMARY KEY,                 -- "documents/" + uri without scheme
  uri TEXT NOT NULL UNIQUE,
  base_uri TEXT NOT NULL,                -- the --base-uri that ingested it; ingestion never crosses it
  data_source TEXT NOT NULL,             -- the host, e.g. dart.dev
  title TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  content TEXT NOT NULL,                 -- Markdown
  content_length_bytes INTEGER NOT NULL, -- UTF-8 length of content
  content_hash TEXT NOT NULL,            -- SHA-256 of title, description, content and data source
  update_time TEXT NOT NULL              -- Date.toISOString() form, so text order is time order
);
CREATE INDEX documents_by_base_uri ON documents (base_uri);
CREATE INDEX documents_by_update_time ON documents (update_time);

CREATE TABLE chunks (
  rowid INTEGER PRIMARY KEY,
  document_name TEXT NOT NULL REFERENCES documents (name) ON DELETE CASCADE,
  chunk_id TEXT NOT NULL,                -- unique within its document
  position INTEGER NOT NULL,             -- order within the document
  title TEXT NOT NULL,                   -- the document title, indexed with extra weight
  heading TEXT NOT NULL,                 -- heading path, e.g. "Futures > Handling errors"
  content TEXT NOT NULL,                 -- Markdown, prefixed with its heading path
  UNIQUE (document_name, chunk_id)
);

CREATE VIRTUAL TABLE chunks_fts USING fts5 (
  title, heading, content,
  content = 'chunks', content_rowid = 'rowid',
  tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER chunks_after_insert AFTER INSERT ON chunks BEGIN
  INSERT INTO chunks_fts (rowid, title, heading, content) VALUES (new.rowid, new.title, new.heading, new.content);
END;
CREATE TRIGGER chunks_after_delete AFTER DELETE ON chunks BEGIN
  INSERT INTO chunks_fts (chunks_fts, rowid, title, heading, content) VALUES ('delete', old.rowid, old.title, old.heading, old.content);
END;
CREATE TRIGGER chunks_after_update AFTER UPDATE ON chunks BEGIN
  INSERT INTO chunks_fts (chunks_fts, rowid, title, heading, content) VALUES ('delete', old.rowid, old.title, old.heading, old.content);
  INSERT INTO chunks_fts (rowid, title, heading, content) VALUES (new.rowid, new.title, new.heading, new.content);
END;
