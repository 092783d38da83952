-- The HTTP validators of the pages a site crawl ingested (`npm run ingest --
-- site`), so the next crawl asks for each page conditionally and an unchanged
-- page costs a 304. `links` keeps the in-scope pages the page links to (a JSON
-- array): a 304 has no body to find them in, and a crawl that follows links
-- must still reach the pages behind an unchanged one.
CREATE TABLE site_pages (
  url TEXT PRIMARY KEY,
  base_uri TEXT NOT NULL,
  document_name TEXT NOT NULL,
  etag TEXT,
  last_modified TEXT,
  links TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX site_pages_base_uri ON site_pages (base_uri);
