-- Corpus statistics (issue 36): what search reads about the corpus as a
-- whole to weigh query words, kept exact at every generation. Before this,
-- search took max(rowid) of chunks as the chunk count, which only grows as
-- refreshes delete and re-insert changed chunks (after 30 refreshes of 5 % of
-- a site it read 2,500 for 1,000 chunks), so rarity weights slowly flattened.
-- Triggers keep the count in the same transaction as the chunks themselves
-- (a generation's publishing batch, a removal, a cascade from documents), so
-- a reader sees the count of exactly the chunks it searches; reading it is
-- one row. FTS5 keeps its own row count and column lengths for bm25() the
-- same way (its 'delete' triggers, migration 0001).
CREATE TABLE corpus_statistics (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  chunks INTEGER NOT NULL                -- count(*) of chunks, every version's
);
INSERT INTO corpus_statistics (id, chunks) SELECT 1, count(*) FROM chunks;

CREATE TRIGGER chunks_counted_after_insert AFTER INSERT ON chunks BEGIN
  UPDATE corpus_statistics SET chunks = chunks + 1 WHERE id = 1;
END;
CREATE TRIGGER chunks_counted_after_delete AFTER DELETE ON chunks BEGIN
  UPDATE corpus_statistics SET chunks = chunks - 1 WHERE id = 1;
END;

-- A key's own search and get limits (issue 36), per minute; NULL: its tier's
-- (QUOTA_SEARCH_PER_MINUTE and the others, src/quota/limits.ts).
ALTER TABLE api_keys ADD COLUMN search_per_minute INTEGER CHECK (search_per_minute IS NULL OR search_per_minute >= 0);
ALTER TABLE api_keys ADD COLUMN get_per_minute INTEGER CHECK (get_per_minute IS NULL OR get_per_minute >= 0);
