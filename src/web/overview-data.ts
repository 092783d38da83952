// The facts "What is here" shows, gathered for one request. Each part can
// fail on its own (a store down) and then says so, instead of taking the
// whole page down with it.
import { readSession } from "../d1/sessions.ts";
import type { Caller } from "../auth/caller.ts";
import { type DataSourceStats, corpusStats } from "../documents/read/corpus-stats.ts";
import { toAlmanacError } from "../errors.ts";
import { logInternalFault } from "../http/internal-faults.ts";
import { type ProviderStats, libraryStats } from "../library/library-stats.ts";
import { type AnswerAllowance, answerAllowance } from "../quota/gate.ts";
import { listSources } from "../sources/sources.ts";
import { hostOf, statusOf, type SourceStatus } from "../sources/status.ts";
import { type Viewer, visibilityFor } from "../documents/access/visibility.ts";

/** A part of the overview: its value, or the public message saying why it is missing. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; message: string };

/** Who the allowance belongs to, and what is left of it. */
export interface CallerAllowance {
  caller: Caller;
  allowance: AnswerAllowance;
}

/**
 * One kept source's freshness, exactly as GET /sources answers it (times in
 * RFC 3339), never its options or URL; the page count is null when the
 * corpus could not be read.
 */
export type SourceFreshness = SourceStatus;

export interface OverviewData {
  corpus: Outcome<DataSourceStats[]>;
  library: Outcome<ProviderStats[]>;
  allowance: Outcome<CallerAllowance>;
  /** The sources `npm run sources` keeps, by name; data sources without one are only in `corpus`. */
  sources: Outcome<SourceFreshness[]>;
}

/**
 * Corpus and library sizes, the kept sources' freshness and the caller's
 * answer_query allowance (read from the caller's QuotaCounter, charging
 * nothing), in parallel, as `viewer` sees the corpus. `caller` is the outcome of identifying the caller:
 * a refused key shows its 401 message where the allowance would be.
 */
export async function loadOverview(env: Env, caller: Outcome<Caller>, viewer: Viewer): Promise<OverviewData> {
  // One read session (the nearest replica) for every read.
  const db = readSession(env.DB);
  // What the caller sees (src/documents/access/visibility.ts): counts, sources and the forms' source lists alike.
  const corpusRead = corpusStats(db, viewer);
  const hidden = visibilityFor(db, viewer).then((visibility) => visibility.hidden);
  const [corpus, library, allowance, sources] = await Promise.all([
    settle(corpusRead),
    settle(libraryStats(db)),
    caller.ok ? settle(answerAllowance(env, caller.value).then((allowance) => ({ caller: caller.value, allowance }))) : caller,
    // The sources' page counts come from the corpus count already read, not
    // from a second pass over the documents as GET /sources makes.
    settle(
      Promise.all([listSources(db), corpusRead.catch(() => null), hidden]).then(([kept, stats, hiddenSources]) =>
        kept
          .filter((source) => !hiddenSources.includes(hostOf(source)))
          .map((source) => statusOf(source, stats ? (stats.find((stat) => stat.dataSource === hostOf(source))?.pages ?? 0) : null)),
      ),
    ),
  ]);
  return { corpus, library, allowance, sources };
}

async function settle<T>(promise: Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await promise };
  } catch (thrown) {
    const error = toAlmanacError(thrown);
    logInternalFault("landing page overview", error);
    return { ok: false, message: error.message };
  }
}
