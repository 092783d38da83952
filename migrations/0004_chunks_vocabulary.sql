-- The FTS5 index's vocabulary: for each indexed (Porter-stemmed) term, in how
-- many chunks it occurs. Search reads it to weigh query words by rarity (a
-- question's rare words say what it is about). fts5vocab reads the index
-- itself, so it never needs rebuilding and stays right after every ingest.
CREATE VIRTUAL TABLE chunks_vocab USING fts5vocab (chunks_fts, 'row');
