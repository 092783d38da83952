// --version <label> and --current, the same for every kind of ingestion that
// writes pages (docs, and the site, archive and llms readers): parsed once
// into the SiteVersion that siteFor() puts in the Site the pipeline takes.
import type { SiteVersion } from "../src/documents/versions.ts";

/** The parseArgs option definitions, to spread into a command's `options`. */
export const VERSION_OPTIONS = {
  version: { type: "string" },
  current: { type: "boolean", default: false },
} as const;

/**
 * The version a run writes, or undefined for unversioned pages. Throws a
 * plain Error when --current comes without a label.
 *
 * @example versionOption({ version: "v2", current: true }) // { label: "v2", current: true }
 */
export function versionOption(values: { version?: string; current?: boolean }): SiteVersion | undefined {
  if (values.version === undefined) {
    if (values.current) throw new Error("--current makes a version current: give its label too, e.g. --version v2 --current");
    return undefined;
  }
  return { label: values.version, current: values.current ?? false };
}
