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

/** A part of the overview: its value, or the public message saying why it is missing. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; message: string };

/** Who the allowance belongs to, and what is left of it. */
export interface CallerAllowance {
  caller: Caller;
  allowance: AnswerAllowance;
}

export interface OverviewData {
  corpus: Outcome<DataSourceStats[]>;
  library: Outcome<ProviderStats[]>;
  allowance: Outcome<CallerAllowance>;
}

/**
 * Corpus and library sizes and the caller's answer_query allowance (read
 * from the caller's QuotaCounter, charging nothing), in parallel. `caller`
 * is the outcome of identifying the caller: a refused key shows its 401
 * message where the allowance would be.
 */
export async function loadOverview(env: Env, caller: Outcome<Caller>): Promise<OverviewData> {
  // One read session (the nearest replica) for both counts.
  const db = readSession(env.DB);
  const [corpus, library, allowance] = await Promise.all([
    settle(corpusStats(db)),
    settle(libraryStats(db)),
    caller.ok ? settle(answerAllowance(env, caller.value).then((allowance) => ({ caller: caller.value, allowance }))) : caller,
  ]);
  return { corpus, library, allowance };
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
