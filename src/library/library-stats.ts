import type { D1Reader } from "../d1/sessions.ts";

/** How many query-library entries serve one provider. */
export interface ProviderStats {
  provider: string;
  entries: number;
  /** Of those, entries that change resources (verb mutation or lifecycle), which search shows only on request. */
  mutations: number;
}

/**
 * Entries per provider, deprecated ones left out (search never shows them),
 * in provider order. An entry naming two providers counts for both.
 *
 * @example await libraryStats(env.DB) // [{ provider: "cloudflare", entries: 4, mutations: 1 }, …]
 */
export async function libraryStats(db: D1Reader): Promise<ProviderStats[]> {
  const { results } = await db
    .prepare(
      `SELECT p.value AS provider, count(*) AS entries, sum(e.verb != 'select') AS mutations
       FROM library_entries e, json_each(e.metadata, '$.providers') p
       WHERE e.status != 'deprecated'
       GROUP BY p.value
       ORDER BY p.value`,
    )
    .all<ProviderStats>();
  return results;
}
