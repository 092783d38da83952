// Who is calling: an API key holder, or an anonymous caller on the public tier.
import { AlmanacError } from "../errors.ts";
import { hashApiKey } from "./api-keys.ts";
import { findApiKeyByHash } from "./key-store.ts";

/** A caller, as the quota and the error messages need to know it. */
export type Caller =
  | {
      kind: "key";
      keyId: string;
      label: string;
      tier: string;
      /** The key's own limits; null means the tier's. */
      answerPerMinute: number | null;
      answerPerDay: number | null;
      /** The key's audiences: the restricted data sources it sees (src/documents/access/visibility.ts). */
      audiences: readonly string[];
      searchPerMinute?: number | null;
      getPerMinute?: number | null;
    }
  | {
      kind: "anonymous";
      /** The client address that identifies the caller: an IPv4 address or an IPv6 /64. */
      address: string;
    };

/** Where a key can be sent, in the order they are read (as Google's APIs accept them). */
type KeySource = "X-Goog-Api-Key" | "Authorization: Bearer" | "?key=";

/** The key a request presents, and where; null when it presents none. */
interface PresentedKey {
  key: string;
  source: KeySource;
}

const HOW_TO_SEND = "send an API key as X-Goog-Api-Key: <key>, Authorization: Bearer <key> or ?key=<key>";

/**
 * Reads the API key from a request. Sending two different keys, or an empty
 * one, is refused rather than guessed at: either hides a configuration mistake.
 * An Authorization header with another scheme (Basic, …) is not a key.
 */
export function presentedApiKey(request: Request): PresentedKey | null {
  const authorization = request.headers.get("authorization");
  // HTTP drops trailing spaces, so "Bearer " arrives as "Bearer": a bearer scheme with an empty token.
  const bearer = authorization?.match(/^\s*bearer(?:\s+(.*))?$/i);
  const candidates: [KeySource, string | null | undefined][] = [
    ["X-Goog-Api-Key", request.headers.get("x-goog-api-key")],
    ["Authorization: Bearer", bearer ? (bearer[1] ?? "") : null],
    // Every ?key= counts: ?key=A&key=B must not quietly use A.
    ...new URL(request.url).searchParams.getAll("key").map((key): [KeySource, string] => ["?key=", key]),
  ];
  const presented: PresentedKey[] = [];
  for (const [source, value] of candidates) {
    if (value == null) continue;
    const key = value.trim();
    if (!key) throw new AlmanacError("UNAUTHENTICATED", `the API key in ${source} is empty; ${HOW_TO_SEND}, or send none to use the public tier`);
    presented.push({ key, source });
  }
  const [first, ...others] = presented;
  const conflicting = others.find((other) => other.key !== first?.key);
  if (first && conflicting) {
    throw new AlmanacError("UNAUTHENTICATED", `two different API keys were sent, in ${first.source} and ${conflicting.source}; send one`);
  }
  return first ?? null;
}

/**
 * Identifies the caller of a request. A key must be known and not revoked:
 * a bad key is refused with UNAUTHENTICATED, never served as anonymous, so a
 * mistyped key is noticed at once. Without a key the caller is anonymous,
 * which PUBLIC_TIER may forbid.
 */
export async function identifyCaller(env: Env, request: Request): Promise<Caller> {
  const presented = presentedApiKey(request);
  if (presented) {
    const record = await findApiKeyByHash(env.DB, await hashApiKey(presented.key));
    if (!record) {
      throw new AlmanacError(
        "UNAUTHENTICATED",
        `the API key sent in ${presented.source} is not valid on this server (unknown key); check it for typos, or ask the operator for a key`,
      );
    }
    if (record.revokedAt) {
      throw new AlmanacError(
        "UNAUTHENTICATED",
        `the API key sent in ${presented.source} ("${record.label}", ${record.id}) was revoked at ${record.revokedAt}; ask the operator for a new key`,
      );
    }
    return {
      kind: "key",
      keyId: record.id,
      label: record.label,
      tier: record.tier,
      answerPerMinute: record.answerPerMinute,
      answerPerDay: record.answerPerDay,
      audiences: record.audiences,
      searchPerMinute: record.searchPerMinute,
      getPerMinute: record.getPerMinute,
    };
  }
  if (!publicTierIsOn(env)) {
    throw new AlmanacError("UNAUTHENTICATED", `this server requires an API key: ${HOW_TO_SEND}`);
  }
  return { kind: "anonymous", address: clientAddress(request.headers.get("cf-connecting-ip")) };
}

/** The audiences a caller reads with: its key's, none for an anonymous caller (public sources only). */
export function callerAudiences(caller: Caller): readonly string[] {
  return caller.kind === "key" ? caller.audiences : [];
}

/** PUBLIC_TIER: "on" (the default) or "off"; any other value is a configuration error, not a guess. */
function publicTierIsOn(env: Pick<Env, "PUBLIC_TIER">): boolean {
  const value = (env.PUBLIC_TIER ?? "").trim().toLowerCase();
  if (value === "" || value === "on") return true;
  if (value === "off") return false;
  throw new AlmanacError("INTERNAL", `PUBLIC_TIER is "${env.PUBLIC_TIER}"; set it to "on" or "off" in wrangler.toml [vars]`);
}

/**
 * The name of the counter a caller's quota is kept in. Keys count by id, so
 * a key's allowance is shared by every client using it.
 */
export function callerIdentity(caller: Caller): string {
  return caller.kind === "key" ? `key:${caller.keyId}` : `ip:${caller.address}`;
}

/**
 * The address that identifies an anonymous caller. An IPv6 client usually
 * controls a whole /64 (RFC 6177), so counting single IPv6 addresses would
 * let it mint fresh allowances at will: IPv6 callers are counted per /64.
 * Without CF-Connecting-IP (only possible off Cloudflare's network) every
 * anonymous caller shares one counter, which errs on the side of refusing.
 */
export function clientAddress(connectingIp: string | null): string {
  const ip = connectingIp?.trim().toLowerCase();
  if (!ip) return "unknown";
  if (!ip.includes(":")) return ip;
  const groups = expandIpv6(ip);
  if (!groups) return ip;
  // IPv4-mapped (::ffff:a.b.c.d): the client is really an IPv4 address.
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    const [high = 0, low = 0] = groups.slice(6);
    return [high >> 8, high & 0xff, low >> 8, low & 0xff].join(".");
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(":")}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, or null if it is not one. */
function expandIpv6(ip: string): number[] | null {
  let text = ip.replace(/%.*$/, "");
  // A trailing dotted quad (::ffff:1.2.3.4) stands for the last two groups.
  const dotted = text.match(/^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(2).map(Number) as [number, number, number, number];
    text = `${dotted[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const parse = (part: string | undefined) => (part ? part.split(":") : []);
  const head = parse(halves[0]);
  const tail = parse(halves[1]);
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...tail];
  if (!groups.every((group) => /^[0-9a-f]{1,4}$/.test(group))) return null;
  return groups.map((group) => Number.parseInt(group, 16));
}
