-- Reading sites right (issue 34). A site's own back-of-book index as a bridge of words: its terms
-- are attached to the chunk they point to (the section its fragment names,
-- else the page's lead) and searched as a column of their own, weighed like
-- a heading (ranking-weights.ts indexTerms), never shown as page text.
--
-- `chunks.terms` is derived: publishing a site run writes it from
-- `index_terms` (generations.ts), so it is right whichever of a run's pieces
-- read the index page and whichever read the pages it points to.
ALTER TABLE chunks ADD COLUMN terms TEXT NOT NULL DEFAULT '';

-- The FTS5 index gains the column: rebuilt from chunks, its vocabulary with it.
DROP TRIGGER chunks_after_insert;
DROP TRIGGER chunks_after_delete;
DROP TRIGGER chunks_after_update;
DROP TABLE chunks_vocab;
DROP TABLE chunks_fts;

CREATE VIRTUAL TABLE chunks_fts USING fts5 (
  title, heading, content, terms,
  content = 'chunks', content_rowid = 'rowid',
  tokenize = 'porter unicode61 remove_diacritics 2'
);
INSERT INTO chunks_fts (chunks_fts) VALUES ('rebuild');
CREATE VIRTUAL TABLE chunks_vocab USING fts5vocab (chunks_fts, 'row');

CREATE TRIGGER chunks_after_insert AFTER INSERT ON chunks BEGIN
  INSERT INTO chunks_fts (rowid, title, heading, content, terms) VALUES (new.rowid, new.title, new.heading, new.content, new.terms);
END;
CREATE TRIGGER chunks_after_delete AFTER DELETE ON chunks BEGIN
  INSERT INTO chunks_fts (chunks_fts, rowid, title, heading, content, terms) VALUES ('delete', old.rowid, old.title, old.heading, old.content, old.terms);
END;
CREATE TRIGGER chunks_after_update AFTER UPDATE ON chunks BEGIN
  INSERT INTO chunks_fts (chunks_fts, rowid, title, heading, content, terms) VALUES ('delete', old.rowid, old.title, old.heading, old.content, old.terms);
  INSERT INTO chunks_fts (rowid, title, heading, content, terms) VALUES (new.rowid, new.title, new.heading, new.content, new.terms);
END;

-- The published pairs: an index page (`source`, the URL it was read from)
-- says `term` is about page `target` (a document name) at `anchor` ('' for
-- the page itself). An index page is not stored as a document, so it has no
-- validators and every full run reads it again and replaces its pairs.
CREATE TABLE index_terms (
  base_uri TEXT NOT NULL,
  source TEXT NOT NULL,
  target TEXT NOT NULL,
  anchor TEXT NOT NULL,
  term TEXT NOT NULL
);
CREATE INDEX index_terms_by_target ON index_terms (target, anchor);
CREATE INDEX index_terms_by_base_uri ON index_terms (base_uri, source);

-- A run's pairs until it publishes (swept with the run's other staged rows).
CREATE TABLE staged_index_terms (
  generation TEXT NOT NULL,
  source TEXT NOT NULL,
  target TEXT NOT NULL,
  anchor TEXT NOT NULL,
  term TEXT NOT NULL
);
CREATE INDEX staged_index_terms_by_generation ON staged_index_terms (generation, source);

-- The template (src/readers/site/template.ts) the last run that read enough
-- pages learnt for its base URI: a later run that reads too few pages anew to
-- learn it (a refresh where three pages changed) strips their navigation by it.
CREATE TABLE site_templates (
  base_uri TEXT PRIMARY KEY,
  template TEXT NOT NULL                 -- JSON TemplateState: pages read and the most repeated pieces' counts
);
