-- The embedding of each chunk (issue 22): one row per chunk that has a vector,
-- keyed by a hash of its page and chunk id (a Vectorize id: at most 64 bytes).
-- It is the ledger hybrid retrieval keeps vectors in step with: a chunk whose
-- text hash and model match its row is never embedded again, and rows of
-- chunks no longer ingested are deleted with their vectors. With
-- VECTOR_INDEX=d1 the vector itself is here (unit length, quantised to a
-- byte per dimension with a float32 scale, base64: d1-index.ts says why)
-- and search scans it; with VECTOR_INDEX=vectorize it lives in
-- Vectorize under the same id and `vector` is NULL. Nothing reads this table
-- while EMBEDDINGS=off.
CREATE TABLE chunk_vectors (
  vector_id TEXT PRIMARY KEY,            -- SHA-256 hex of document name, "#", chunk id
  base_uri TEXT NOT NULL,                -- the base URI that ingested the page (documents.base_uri)
  document_name TEXT NOT NULL,           -- documents.name
  chunk_id TEXT NOT NULL,                -- chunks.chunk_id
  text_hash TEXT NOT NULL,               -- SHA-256 of the model id and the text that was embedded
  model TEXT NOT NULL,                   -- the embedder and model, e.g. "http:nomic-embed-text"
  dimensions INTEGER NOT NULL,
  vector TEXT                            -- VECTOR_INDEX=d1 only: base64 of scale and int8 components
);
CREATE INDEX chunk_vectors_by_base_uri ON chunk_vectors (base_uri);
CREATE INDEX chunk_vectors_by_document ON chunk_vectors (document_name, chunk_id);
