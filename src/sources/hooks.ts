/**
 * Reading a webhook request (issue 38): who may send it and what it says.
 * Three forms, each verified before its body is believed:
 * - `github`: `X-Hub-Signature-256: sha256=<hex>`, HMAC-SHA256 of the body
 *   under the source's secret; `X-GitHub-Event: push` (a `ping` is answered,
 *   other events ignored); replay: `X-GitHub-Delivery` seen before.
 * - `gitlab`: `X-Gitlab-Token: <secret>` (GitLab sends the token itself, it
 *   signs nothing); `X-Gitlab-Event: Push Hook`; replay: `X-Gitlab-Event-UUID`
 *   (or `Idempotency-Key`, or the body's hash) seen before.
 * - `signed`: `X-Almanac-Timestamp: <unix seconds>` and
 *   `X-Almanac-Signature: sha256=<hex>`, HMAC-SHA256 of `<timestamp>.<body>`;
 *   refused more than HOOK_CLOCK_SKEW_S from the server's clock, and the
 *   same signature twice is a replay. Body: `{"commit"?, "paths"?, "urls"?}`.
 * Pure: the route (src/web/source-hooks.ts) reads the request and records
 * what is accepted (pushes.ts).
 */
import { AlmanacError } from "../errors.ts";
import { hmacSha256 } from "./hook-secrets.ts";

/** The providers a source's hook URL names: /sources/<name>/hooks/<provider>. */
export const HOOK_PROVIDERS = ["github", "gitlab", "signed"] as const;
export type HookProvider = (typeof HOOK_PROVIDERS)[number];

/** A push body past this is refused (413): GitHub's pushes of many commits stay far under it, and nothing larger is read. */
export const MAX_HOOK_BODY_BYTES = 1024 * 1024;

/** How far a signed request's timestamp may be from the server's clock: an older request is a replay (or too late to trust). */
const HOOK_CLOCK_SKEW_S = 300;

/** Changed paths a push may name; more (or a truncated commit list) asks for a whole run instead. */
const MAX_PUSH_PATHS = 5000;

/** What a verified push asks for: the pages to re-read, or (neither list) a whole run. */
export interface PushChanges {
  /** Repository paths added, modified or removed (archive sources). */
  paths?: string[];
  /** Page URLs to read again (site sources). */
  urls?: string[];
}

/** A verified push. */
export interface Push {
  commit: string | null;
  /** The pushed ref (refs/heads/main), when the provider says. */
  ref: string | null;
  changes: PushChanges;
  /** What identifies this delivery: the same one again is a replay. */
  delivery: string;
}

/** A verified request: a push to act on, or an event that changes nothing (and why). */
type HookRequest = { push: Push } | { ignored: string };

const unauthenticated = (message: string) => new AlmanacError("UNAUTHENTICATED", message);
const malformed = (message: string) => new AlmanacError("INVALID_ARGUMENT", message);

/**
 * Verifies a request to a source's hook with its `secret` and reads it.
 * Throws AlmanacError UNAUTHENTICATED (401) when the signature, token or
 * timestamp does not verify, INVALID_ARGUMENT (400) when it verifies but is
 * not a push body.
 */
export async function readHookRequest(provider: HookProvider, headers: Headers, body: Uint8Array, secret: string, now: number): Promise<HookRequest> {
  const encoder = new TextEncoder();
  if (provider === "gitlab") {
    const token = headers.get("x-gitlab-token");
    if (!token) throw unauthenticated("no X-Gitlab-Token header: set the hook's secret token to the source's secret (npm run sources -- hook <name>)");
    if (!(await sameSecret(token, secret))) throw unauthenticated("X-Gitlab-Token is not this source's secret; a push for another source, or an old secret");
    const event = headers.get("x-gitlab-event") ?? "";
    if (event !== "Push Hook") return { ignored: `a GitLab "${event.slice(0, 60)}" event is not a push; nothing to do` };
    const delivery = headers.get("x-gitlab-event-uuid") ?? headers.get("idempotency-key") ?? (await sha256Hex(body));
    return { push: { ...gitPush(parseJson(body), "total_commits_count"), delivery: `gitlab:${delivery}` } };
  }
  if (provider === "github") {
    const signature = headers.get("x-hub-signature-256");
    if (!signature) throw unauthenticated("no X-Hub-Signature-256 header: set the webhook's secret to the source's secret (npm run sources -- hook <name>)");
    if (!(await signatureMatches(signature, encoder.encode(secret), body))) {
      throw unauthenticated("X-Hub-Signature-256 does not match the body under this source's secret; a push for another source, an old secret, or a changed body");
    }
    const event = headers.get("x-github-event") ?? "";
    if (event === "ping") return { ignored: "ping received; pushes to this hook refresh the source" };
    if (event !== "push") return { ignored: `a GitHub "${event.slice(0, 60)}" event is not a push; nothing to do` };
    const delivery = headers.get("x-github-delivery") ?? (await sha256Hex(body));
    return { push: { ...gitPush(parseJson(body), null), delivery: `github:${delivery}` } };
  }
  const stamp = headers.get("x-almanac-timestamp") ?? "";
  const signature = headers.get("x-almanac-signature");
  if (!/^\d{1,12}$/.test(stamp) || !signature) {
    throw unauthenticated("a signed push carries X-Almanac-Timestamp (unix seconds) and X-Almanac-Signature: sha256=<hex of HMAC-SHA256(secret, timestamp + \".\" + body)>");
  }
  if (Math.abs(now / 1000 - Number(stamp)) > HOOK_CLOCK_SKEW_S) {
    throw unauthenticated(`X-Almanac-Timestamp is more than ${HOOK_CLOCK_SKEW_S} s from the server's clock: a replayed or delayed request is refused; sign it again now`);
  }
  const signed = new Uint8Array([...encoder.encode(`${stamp}.`), ...body]);
  if (!(await signatureMatches(signature, encoder.encode(secret), signed))) {
    throw unauthenticated("X-Almanac-Signature does not match timestamp.body under this source's secret; a push for another source, an old secret, or a changed body");
  }
  const json = parseJson(body);
  const commit = typeof json.commit === "string" ? json.commit.slice(0, 100) : null;
  const changes: PushChanges = {};
  if (json.paths !== undefined) changes.paths = stringList(json.paths, "paths");
  if (json.urls !== undefined) changes.urls = stringList(json.urls, "urls");
  return { push: { commit, ref: null, changes, delivery: `signed:${signature.toLowerCase()}` } };
}

/** The signature header says sha256=<hex> and verifies (Web Crypto's verify compares in constant time). */
async function signatureMatches(header: string, key: Uint8Array, data: Uint8Array): Promise<boolean> {
  const match = /^sha256=([0-9a-f]{64})$/i.exec(header.trim());
  if (!match) return false;
  const mac = new Uint8Array(match[1]!.match(/../g)!.map((pair) => parseInt(pair, 16)));
  const imported = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
  return crypto.subtle.verify("HMAC", imported, mac, data);
}

/** Compares a token with the secret in constant time (their digests, so lengths never leak). */
async function sameSecret(token: string, secret: string): Promise<boolean> {
  const key = crypto.getRandomValues(new Uint8Array(32));
  const [a, b] = await Promise.all([hmacSha256(key, new TextEncoder().encode(token)), hmacSha256(key, new TextEncoder().encode(secret))]);
  return crypto.subtle.timingSafeEqual(a, b);
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  return [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

function parseJson(body: Uint8Array): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(body));
  } catch {
    throw malformed("the body is not JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw malformed("the body is not a JSON object");
  return value as Record<string, unknown>;
}

function stringList(value: unknown, field: string): string[] {
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string" || item.length === 0 || item.length > 2048)) {
    throw malformed(`"${field}" is a list of strings (1 to 2048 characters each)`);
  }
  if (value.length > MAX_PUSH_PATHS) throw malformed(`"${field}" names more than ${MAX_PUSH_PATHS} entries; send none to ask for a whole run`);
  return [...new Set(value as string[])];
}

/**
 * A GitHub or GitLab push body: its commits' added, modified and removed
 * paths. A push whose commit list may be incomplete (GitLab's
 * total_commits_count above the commits sent, GitHub's 2048-commit cap), or
 * that was forced (history rewritten: the commits do not say what changed),
 * or that carries no commit (a new branch) asks for a whole run.
 */
function gitPush(json: Record<string, unknown>, totalField: string | null): Omit<Push, "delivery"> {
  const commit = typeof json.after === "string" ? json.after.slice(0, 100) : null;
  const ref = typeof json.ref === "string" ? json.ref.slice(0, 300) : null;
  if (!Array.isArray(json.commits)) throw malformed("a push body has a commits list");
  const commits = json.commits as unknown[];
  const total = totalField && typeof json[totalField] === "number" ? (json[totalField] as number) : commits.length;
  const whole = json.forced === true || total > commits.length || commits.length >= 2048;
  const paths = new Set<string>();
  for (const entry of commits) {
    if (typeof entry !== "object" || entry === null) throw malformed("a push body's commits are objects");
    for (const field of ["added", "modified", "removed"]) {
      const list = (entry as Record<string, unknown>)[field];
      if (list === undefined) continue;
      if (!Array.isArray(list) || list.some((path) => typeof path !== "string")) throw malformed(`a commit's "${field}" is a list of paths`);
      for (const path of list as string[]) paths.add(path);
    }
  }
  return { commit, ref, changes: whole || commits.length === 0 || paths.size > MAX_PUSH_PATHS ? {} : { paths: [...paths] } };
}
