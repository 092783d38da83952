// npm run keys -- create|list|revoke: manage API keys in the local D1 database, or the deployed one with --remote.
import { parseArgs } from "node:util";
import { type ApiKeyRecord, KEY_TIERS, isKeyTier } from "../src/auth/api-keys.ts";
import { createApiKey, listApiKeys, revokeApiKey, setKeyAudiences } from "../src/auth/key-store.ts";
import { AUDIENCE_OPTIONS, audienceOption } from "./audience-option.ts";
import { parseWholeNumber, tierCallLimit, tierLimits } from "../src/quota/limits.ts";
import { withEnv } from "./env.ts";
import { DEFAULT_STATE_DIR, retriedWhileLocked } from "./local-env.ts";
import { runCli, UsageError } from "./run-cli.ts";

const USAGE = `usage:
  npm run keys -- create --label NAME [--tier ${KEY_TIERS.join("|")}] [--answer-per-minute N] [--answer-per-day N] [--search-per-minute N] [--get-per-minute N] [--audience a,b] [--remote]
  npm run keys -- list [--remote]
  npm run keys -- revoke <key-or-id> [--remote]
  npm run keys -- audience <key-or-id> --audience a,b | --public [--remote]

Keys live in the local D1 database that \`npm start\` serves (--persist-to <dir> picks
another state folder), or in the deployed one with --remote. Only a hash of each key is
stored: \`create\` prints the key once, alone on the last line of its output.

--audience team-a[,team-b]: the key sees the data sources restricted to those audiences beside
the public ones (corpus/docs/private-documentation.md); \`audience\` changes an existing key's
(--public: public sources only).`;

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      label: { type: "string" },
      tier: { type: "string" },
      "answer-per-minute": { type: "string" },
      "answer-per-day": { type: "string" },
      ...AUDIENCE_OPTIONS,
      "search-per-minute": { type: "string" },
      "get-per-minute": { type: "string" },
      remote: { type: "boolean", default: false },
      "persist-to": { type: "string", default: DEFAULT_STATE_DIR },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) return console.log(USAGE);
  const [command, ...rest] = positionals;
  // Every command is one statement, so a local one is simply repeated when `npm start` held the lock.
  const run = <T>(work: (env: Env) => Promise<T>): Promise<T> =>
    withEnv({ remote: values.remote, persistTo: values["persist-to"] }, (env) => (values.remote ? work(env) : retriedWhileLocked(() => work(env))));

  if (command === "create") {
    if (rest.length > 0) throw new UsageError(`create takes no positional arguments (got ${rest.join(" ")})`);
    if (values.label === undefined) throw new UsageError("--label is required, e.g. --label ci-bot");
    const options = {
      label: values.label,
      tier: values.tier,
      answerPerMinute: limitOption("answer-per-minute", values["answer-per-minute"]),
      answerPerDay: limitOption("answer-per-day", values["answer-per-day"]),
      audiences: audienceOption(values) ?? [],
      searchPerMinute: limitOption("search-per-minute", values["search-per-minute"]),
      getPerMinute: limitOption("get-per-minute", values["get-per-minute"]),
    };
    const { key, record, description } = await run(async (env) => {
      const created = await createApiKey(env.DB, options);
      return { ...created, description: describeKey(env, created.record) };
    });
    console.log(`Created API key ${description}${values.remote ? " in the deployed database" : ""}.`);
    console.log(`Send it as X-Goog-Api-Key: <key> or Authorization: Bearer <key>. It is shown only this once; ${record.id} names it in list and revoke.`);
    console.log(key);
    return;
  }

  if (command === "list") {
    if (rest.length > 0) throw new UsageError(`list takes no positional arguments (got ${rest.join(" ")})`);
    const lines = await run(async (env) => (await listApiKeys(env.DB)).map((record) => describeKey(env, record)));
    console.log(lines.length > 0 ? lines.join("\n") : "No API keys yet; create one with: npm run keys -- create --label NAME");
    return;
  }

  if (command === "revoke") {
    const [keyOrId, ...extra] = rest;
    if (!keyOrId || extra.length > 0) throw new UsageError("give exactly one key or key id to revoke");
    const revoked = await run((env) => revokeApiKey(env.DB, keyOrId.trim()));
    if (!revoked) throw new Error(`no API key matches "${keyOrId}"; npm run keys -- list shows the ids`);
    console.log(`Revoked ${revoked.id} ("${revoked.label}") at ${revoked.revokedAt}; requests with it now get 401.`);
    return;
  }

  if (command === "audience") {
    const [keyOrId, ...extra] = rest;
    if (!keyOrId || extra.length > 0) throw new Error("give exactly one key or key id, e.g. npm run keys -- audience key_3f9c2a1b7d4e --audience team-a");
    const audiences = audienceOption(values);
    if (audiences === undefined) throw new UsageError("say what the key sees: --audience team-a[,team-b], or --public for public sources only");
    const updated = await run((env) => setKeyAudiences(env.DB, keyOrId.trim(), audiences));
    if (!updated) throw new Error(`no API key matches "${keyOrId}"; npm run keys -- list shows the ids`);
    console.log(`${updated.id} ("${updated.label}") now sees ${audiences.length === 0 ? "public data sources only" : `public data sources and those of audience ${audiences.join(", ")}`}.`);
    return;
  }

  throw new Error(command ? `unknown command "${command}"; expected create, list, revoke or audience` : "say what to do: create, list, revoke or audience");
}

/** "--answer-per-minute 60" → 60; absent → null (the tier's limit). */
function limitOption(name: string, value: string | undefined): number | null {
  if (value === undefined) return null;
  const limit = parseWholeNumber(value);
  if (limit === null) throw new UsageError(`--${name} must be a whole number ≥ 0, not "${value}"`);
  return limit;
}

/** One line per key: id, label, tier, effective limits (own or the tier's), created, revoked. */
function describeKey(env: Env, record: ApiKeyRecord): string {
  const tier = isKeyTier(record.tier) ? tierLimits(env, record.tier) : null;
  const limit = (own: number | null, fromTier: number | undefined, per: string) =>
    own !== null ? `${own}/${per} (own)` : fromTier !== undefined ? `${fromTier}/${per}` : `?/${per}`;
  const state = record.revokedAt ? `REVOKED ${record.revokedAt}` : "active";
  return [
    record.id,
    JSON.stringify(record.label),
    `tier ${record.tier}`,
    `answer_query ${limit(record.answerPerMinute, tier?.perMinute, "min")}, ${limit(record.answerPerDay, tier?.perDay, "UTC day")}`,
    `search ${limit(record.searchPerMinute, isKeyTier(record.tier) ? tierCallLimit(env, record.tier, "search") : undefined, "min")}`,
    `get ${limit(record.getPerMinute, isKeyTier(record.tier) ? tierCallLimit(env, record.tier, "get") : undefined, "min")}`,
    record.audiences.length > 0 ? `audiences ${record.audiences.join(",")}` : "public sources only",
    `created ${record.createdAt}`,
    state,
  ].join("  ");
}

runCli("keys", USAGE, main);
