/** What one ingestion run did to what it owns (a site's pages, a library's entries): the names or ids added, updated, unchanged and removed. */
export interface SyncReport {
  added: string[];
  updated: string[];
  unchanged: string[];
  removed: string[];
}
