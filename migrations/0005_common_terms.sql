-- The chunk counts of the index's common terms, copied from chunks_vocab at
-- the end of every ingestion that wrote something. chunks_vocab counts a term
-- by reading its whole doclist, so a question of common words spent more time
-- counting its words than finding its chunks at 100,000 chunks; a row here is
-- one index look-up. Terms in fewer chunks are counted from chunks_vocab
-- (cheap for them), and so is any term ingested since the last copy.
CREATE TABLE common_terms (
  term TEXT PRIMARY KEY,
  doc INTEGER NOT NULL
) WITHOUT ROWID;
