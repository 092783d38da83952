// What a site's earlier runs leave for the next: each page's HTTP validators and
// links (site_pages), for conditional requests, and the template the last run that
// read enough pages learnt (site_templates), for a run that reads only a few.
import type { PageValidator } from "../../readers/site/fetch-page.ts";
import type { TemplateState } from "../../readers/site/template.ts";

/** The template the base URI's last run that read enough pages learnt (migration 0015), when there is one. */
export async function storedTemplate(db: D1Database, baseUri: string): Promise<TemplateState | undefined> {
  const row = await db.prepare("SELECT template FROM site_templates WHERE base_uri = ?1").bind(baseUri).first<{ template: string }>();
  if (!row) return undefined;
  try {
    const state = JSON.parse(row.template) as TemplateState;
    return typeof state.pages === "number" && Array.isArray(state.counts) ? state : undefined;
  } catch {
    return undefined;
  }
}

/** Saves what the run learnt as the base URI's template, in the publishing transaction. */
export function saveTemplate(db: D1Database, baseUri: string, template: TemplateState): D1PreparedStatement {
  return db
    .prepare("INSERT INTO site_templates (base_uri, template) VALUES (?1, ?2) ON CONFLICT (base_uri) DO UPDATE SET template = excluded.template")
    .bind(baseUri, JSON.stringify(template));
}

/** The validators a previous crawl of this base URI kept, for pages still in the corpus. */
export async function loadValidators(db: D1Database, baseUri: string): Promise<Map<string, { name: string; validator: PageValidator }>> {
  const { results } = await db
    .prepare(
      `SELECT s.url, s.document_name, s.etag, s.last_modified, s.links FROM site_pages s
       JOIN documents d ON d.name = s.document_name WHERE s.base_uri = ?1`,
    )
    .bind(baseUri)
    .all<{ url: string; document_name: string; etag: string | null; last_modified: string | null; links: string }>();
  return new Map(
    results.map((row) => [
      row.url,
      {
        name: row.document_name,
        validator: {
          links: parseLinks(row.links),
          ...(row.etag ? { etag: row.etag } : {}),
          ...(row.last_modified ? { lastModified: row.last_modified } : {}),
        },
      },
    ]),
  );
}

function parseLinks(json: string): string[] {
  try {
    const links: unknown = JSON.parse(json);
    return Array.isArray(links) ? links.filter((link): link is string => typeof link === "string") : [];
  } catch {
    return [];
  }
}
