// --audience team-a[,team-b] and --public, the same for every command that
// says who may read a data source (ingest, sources) or what a key opens (keys):
// parsed once into a checked list of audience names (src/documents/access/visibility.ts).
import { audienceList } from "../src/documents/access/visibility.ts";

/** The parseArgs option definitions, to spread into a command's `options`. */
export const AUDIENCE_OPTIONS = {
  audience: { type: "string" },
  public: { type: "boolean", default: false },
} as const;

/**
 * The audiences a command sets: the checked `--audience` names, [] for
 * `--public`, undefined when neither is given (nothing changes). Throws a
 * plain Error when both are given.
 *
 * @example audienceOption({ audience: "team-a,team-b" }) // ["team-a", "team-b"]
 */
export function audienceOption(values: { audience?: string; public?: boolean }): string[] | undefined {
  if (values.audience !== undefined && values.public) throw new Error("--audience restricts and --public opens: give one of them");
  if (values.public) return [];
  return values.audience === undefined ? undefined : audienceList(values.audience);
}

/** How a data source's audiences read in the CLI's output. */
export function describeAudiences(dataSource: string, audiences: readonly string[]): string {
  return audiences.length === 0
    ? `${dataSource} is public: every caller sees it`
    : `${dataSource} is restricted to audience ${audiences.join(", ")}: only keys carrying ${audiences.length === 1 ? "it" : "one of them"} see it`;
}
