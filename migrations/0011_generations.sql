-- Generations (issue 20): a run of an ingestion (the CLI's or a source's
-- Workflow) writes its pages here first, where no reader looks, and then
-- publishes them into documents/chunks in one D1 batch (one transaction), so
-- readers see either the previous pages of the base URI or all of the run's,
-- never a mix. A run that fails or is killed publishes nothing; its rows are
-- deleted when it fails, or by the next run's sweep (generations.ts).
CREATE TABLE generations (
  id TEXT PRIMARY KEY,                   -- the run: a Workflow instance id, or cli-<random>
  base_uri TEXT NOT NULL,                -- the base URI it writes; a newer run of the same one abandons it
  state TEXT NOT NULL CHECK (state IN ('writing', 'published', 'abandoned')),
  started_time TEXT NOT NULL,            -- Date.toISOString()
  touched_time TEXT NOT NULL,            -- the last staged write: a run silent for long is abandoned
  -- What publishing did, set in its transaction: a retried publishing step reads them back.
  added INTEGER NOT NULL DEFAULT 0,
  updated INTEGER NOT NULL DEFAULT 0,
  unchanged INTEGER NOT NULL DEFAULT 0,
  removed INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX generations_by_state ON generations (state, base_uri);

-- Every page the run read, changed or not: the run's manifest. A page of the
-- base URI that is not here when a pruning run publishes is removed.
CREATE TABLE staged_pages (
  generation TEXT NOT NULL,
  name TEXT NOT NULL,
  outcome TEXT NOT NULL CHECK (outcome IN ('added', 'updated', 'unchanged')),
  PRIMARY KEY (generation, name)
) WITHOUT ROWID;

-- The new or changed pages (as documents, without update_time: it is the publishing time).
CREATE TABLE staged_documents (
  generation TEXT NOT NULL,
  name TEXT NOT NULL,
  uri TEXT NOT NULL,
  base_uri TEXT NOT NULL,
  data_source TEXT NOT NULL,
  title TEXT NOT NULL,
  description TEXT NOT NULL,
  content TEXT NOT NULL,
  content_length_bytes INTEGER NOT NULL,
  content_hash TEXT NOT NULL,
  version TEXT NOT NULL,
  PRIMARY KEY (generation, name)
);

-- Their chunks. The rowid orders them, so publishing can copy them in ranges
-- of bounded size (one statement stays far inside D1's query time limit).
CREATE TABLE staged_chunks (
  rowid INTEGER PRIMARY KEY,
  generation TEXT NOT NULL,
  document_name TEXT NOT NULL,
  chunk_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  title TEXT NOT NULL,
  heading TEXT NOT NULL,
  content TEXT NOT NULL
);
CREATE INDEX staged_chunks_by_generation ON staged_chunks (generation, document_name);

-- A site crawl's HTTP validators, published with the pages: a validator
-- saved for a page whose new text was never published would turn the next
-- crawl's request into a 304 and keep the old text for good.
CREATE TABLE staged_site_pages (
  generation TEXT NOT NULL,
  url TEXT NOT NULL,
  document_name TEXT NOT NULL,
  etag TEXT,
  last_modified TEXT,
  links TEXT NOT NULL DEFAULT '[]',
  PRIMARY KEY (generation, url)
) WITHOUT ROWID;
