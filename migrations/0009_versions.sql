-- Versions of a data source's documentation (issue 23). A version is what one
-- base URI holds: `npm run ingest -- docs <dir> --base-uri <uri> --version <label>`.
-- Pages keep their own names and URIs (documents/ + uri), so two versions of
-- one page are two rows whose base URIs differ (…/v1/…, …/v2/…).
--
-- '' is "unversioned": such pages behave as before versions existed and are
-- always seen. A versioned page is seen by default only while its base URI is
-- its data source's current version here; a versioned page with no row here
-- (a version still being written, or being removed) is never seen by default.
ALTER TABLE documents ADD COLUMN version TEXT NOT NULL DEFAULT '';

CREATE TABLE document_versions (
  data_source TEXT NOT NULL,
  label TEXT NOT NULL,                   -- free text from --version: 3.x, v2, 2026-10
  base_uri TEXT NOT NULL UNIQUE,         -- the --base-uri its pages were ingested under
  added_time TEXT NOT NULL,              -- first ingested (Date.toISOString())
  made_current_time TEXT,                   -- last ingested with --current; NULL: never
  -- Denormalised from the two times (the last made current, else the last
  -- added), rewritten by every ingestion that touches versions, so search
  -- reads one flag of a tiny table.
  is_current INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (data_source, label)
);

-- The versioned pages by base URI, names included: search reads the names
-- of non-current versions' pages from here alone, never a page row.
CREATE INDEX documents_versioned ON documents (base_uri, name) WHERE version != '';
