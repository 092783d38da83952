/**
 * Versions of a data source's documentation (migration 0009). A version is
 * the pages one base URI holds, labelled at ingestion (`--version v2`); each
 * data source has one current version: the one last ingested with
 * `--current`, else the one added last. Unversioned pages (label '') are
 * always seen; a versioned page is seen by default only while its version is
 * current, and fetched by name whatever its version.
 */

/** The version an ingestion run writes, and whether it makes it current. */
export interface SiteVersion {
  /** Free text, e.g. "3.x", "v2", "2026-10". */
  label: string;
  /** `--current`: this version becomes its data source's current one once its pages are written. */
  current: boolean;
}

/** One version of a data source as the versions table records it. */
export interface VersionInfo {
  dataSource: string;
  label: string;
  baseUri: string;
  addedTime: string;
  /** When it was last ingested with --current; absent if never. */
  madeCurrentTime?: string;
  isCurrent: boolean;
  pages: number;
}

/** Labels are short free text: what a person types after --version and in a filter. */
const MAX_VERSION_LABEL_LENGTH = 64;

/** `version = "*"` in a filter means every version; no label may be that. */
export const ALL_VERSIONS = "*";

/**
 * Checks a `--version` label; returns it trimmed. Throws a plain Error saying
 * what a label may be.
 *
 * @example versionLabel(" v2 ") // "v2"
 */
export function versionLabel(label: string): string {
  const trimmed = label.trim();
  if (trimmed === "") throw new Error('--version needs a label, e.g. --version v2 or --version "3.x"');
  if (trimmed.length > MAX_VERSION_LABEL_LENGTH) throw new Error(`--version label is ${trimmed.length} characters long; labels are at most ${MAX_VERSION_LABEL_LENGTH}`);
  if (trimmed === ALL_VERSIONS) throw new Error(`--version "${ALL_VERSIONS}" is reserved: a filter's version = "${ALL_VERSIONS}" means every version; choose a label such as v2`);
  if (/[\p{Cc}\p{Cf}]/u.test(trimmed)) throw new Error("--version label must not contain control or invisible characters");
  return trimmed;
}

/**
 * The SQL condition (over `documents` aliased `alias`) that a page is seen
 * by default: unversioned, or of its data source's current version.
 */
export function seenByDefaultSql(alias: string): string {
  return `(${alias}.version = '' OR ${alias}.base_uri IN (SELECT base_uri FROM document_versions WHERE is_current = 1))`;
}

/**
 * A CTE `hidden_chunks (chunk)`: the rowids of the chunks of versioned pages
 * not seen by default. It reads the documents_versioned index and the
 * chunks' (document_name, chunk_id) index only, so it costs nothing while no
 * page has a version and the size of the older versions otherwise.
 */
export const HIDDEN_CHUNKS_CTE = `hidden_chunks (chunk) AS MATERIALIZED (
         SELECT hidden.rowid FROM documents AS page INDEXED BY documents_versioned
         JOIN chunks AS hidden ON hidden.document_name = page.name
         WHERE page.version != '' AND page.base_uri NOT IN (SELECT base_uri FROM document_versions WHERE is_current = 1))`;

/**
 * Rewrites every version's `is_current` from the rule: per data source, the
 * version last made current, else the one added last.
 */
const RECOMPUTE_CURRENT_SQL = `UPDATE document_versions SET is_current = (base_uri = (
     SELECT other.base_uri FROM document_versions AS other WHERE other.data_source = document_versions.data_source
     ORDER BY other.made_current_time IS NULL, other.made_current_time DESC, other.added_time DESC, other.label DESC LIMIT 1))`;

interface VersionRow {
  data_source: string;
  label: string;
  base_uri: string;
  added_time: string;
  made_current_time: string | null;
  is_current: number;
  pages: number;
}

/** Every version, by data source then added time (newest last), with its page count. */
export async function listVersions(db: Pick<D1Database, "prepare">): Promise<VersionInfo[]> {
  const { results } = await db
    .prepare(
      `SELECT v.data_source, v.label, v.base_uri, v.added_time, v.made_current_time, v.is_current,
              (SELECT count(*) FROM documents AS d INDEXED BY documents_versioned WHERE d.base_uri = v.base_uri AND d.version != '') AS pages
       FROM document_versions AS v ORDER BY v.data_source, v.added_time, v.label`,
    )
    .all<VersionRow>();
  return results.map((row) => ({
    dataSource: row.data_source,
    label: row.label,
    baseUri: row.base_uri,
    addedTime: row.added_time,
    ...(row.made_current_time ? { madeCurrentTime: row.made_current_time } : {}),
    isCurrent: row.is_current === 1,
    pages: row.pages,
  }));
}

/**
 * Refuses a versioned run that would mix versions, before anything is
 * written: a base URI holds one version of one data source, and a version
 * is one base URI. Throws a plain Error saying what to do instead.
 */
export async function refuseVersionConflicts(
  db: Pick<D1Database, "prepare">,
  baseUri: string,
  dataSource: string,
  label: string,
): Promise<void> {
  const atBase = await db
    .prepare("SELECT data_source, label FROM document_versions WHERE base_uri = ?1")
    .bind(baseUri)
    .first<{ data_source: string; label: string }>();
  if (atBase && (atBase.data_source !== dataSource || atBase.label !== label)) {
    const given = label === "" ? "without --version" : `as version "${label}"`;
    throw new Error(
      `${baseUri} holds version "${atBase.label}" of ${atBase.data_source}; it cannot also be ingested ${given}. ` +
        `Each version needs its own base URI, as versioned sites publish them (e.g. --base-uri ${baseUri}/${label || "v2"}); ` +
        `to replace it, run npm run ingest -- remove-version "${atBase.label}" --data-source ${atBase.data_source} first`,
    );
  }
  if (label === "") {
    const versioned = await db
      .prepare("SELECT version FROM documents INDEXED BY documents_versioned WHERE base_uri = ?1 AND version != '' LIMIT 1")
      .bind(baseUri)
      .first<{ version: string }>();
    if (versioned) throw new Error(`${baseUri} holds pages of version "${versioned.version}"; pass --version "${versioned.version}" to update them`);
    return;
  }
  const elsewhere = await db
    .prepare("SELECT base_uri FROM document_versions WHERE data_source = ?1 AND label = ?2 AND base_uri != ?3")
    .bind(dataSource, label, baseUri)
    .first<{ base_uri: string }>();
  if (elsewhere) {
    throw new Error(
      `version "${label}" of ${dataSource} was ingested under base URI ${elsewhere.base_uri}; a version is one base URI: ` +
        `ingest it there again, or give this folder another label`,
    );
  }
}

/**
 * The statements that record a version once its pages are written: added
 * the first time, made current with `--current`, and every data source's
 * current version worked out again. One batch, so the switch is atomic.
 */
export function recordVersionStatements(db: D1Database, baseUri: string, dataSource: string, version: SiteVersion, now: string): D1PreparedStatement[] {
  return [
    db
      .prepare(
        `INSERT INTO document_versions (data_source, label, base_uri, added_time, made_current_time) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (data_source, label) DO UPDATE SET made_current_time = coalesce(excluded.made_current_time, made_current_time)`,
      )
      .bind(dataSource, version.label, baseUri, now, version.current ? now : null),
    db.prepare(RECOMPUTE_CURRENT_SQL),
  ];
}

/** The version `label` of a data source (any data source when omitted and the label is unambiguous). Throws a plain Error naming what exists. */
export async function findVersion(db: Pick<D1Database, "prepare">, label: string, dataSource?: string): Promise<VersionInfo> {
  const versions = await listVersions(db);
  const matching = versions.filter((version) => version.label === label && (dataSource === undefined || version.dataSource === dataSource));
  const known = versions.map((version) => `"${version.label}" of ${version.dataSource}`).join(", ") || "none";
  if (matching.length === 0) throw new Error(`no version "${label}"${dataSource ? ` of ${dataSource}` : ""}; the versions ingested are: ${known}`);
  if (matching.length > 1) {
    throw new Error(`version "${label}" exists for ${matching.map((version) => version.dataSource).join(" and ")}; say which with --data-source`);
  }
  return matching[0] as VersionInfo;
}

/**
 * The statements that forget a version before its pages are deleted: from
 * then on its pages are not seen by default (they are versioned pages with
 * no row), and its data source's current version is worked out again.
 */
export function forgetVersionStatements(db: D1Database, version: Pick<VersionInfo, "dataSource" | "label">): D1PreparedStatement[] {
  return [
    db.prepare("DELETE FROM document_versions WHERE data_source = ?1 AND label = ?2").bind(version.dataSource, version.label),
    db.prepare(RECOMPUTE_CURRENT_SQL),
  ];
}
