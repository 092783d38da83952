// Which Cloudflare bindings a CLI command works on: the local state `npm start` serves, or the deployed ones.
import { withMigratedLocalEnv } from "./local-env.ts";
import { withRemoteEnv } from "./remote-env.ts";

/** Where a command's bindings come from: `--remote`, else the local state folder `--persist-to`. */
export interface EnvChoice {
  remote: boolean;
  persistTo: string;
}

/**
 * Runs `work` with the deployed D1 and KV when `remote`, else with the local
 * ones after applying the migrations (already-applied ones are skipped), and
 * always releases the bindings.
 *
 * @example await withEnv({ remote: false, persistTo: ".wrangler/state" }, (env) => listApiKeys(env.DB))
 */
export function withEnv<T>({ remote, persistTo }: EnvChoice, work: (env: Env) => Promise<T>): Promise<T> {
  // The deployed database gets its migrations from `wrangler d1 migrations apply --remote`, never from a CLI run.
  if (remote) return withRemoteEnv(work);
  return withMigratedLocalEnv(persistTo, work);
}
