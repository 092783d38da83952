// Which browsers may reach the server: the Host and Origin rules of
// ALLOWED_HOSTS and ALLOWED_ORIGINS, for every transport that serves browsers.
import { commaList } from "../config.ts";

/** Host names and origins compare case-insensitively (RFC 3986 §3.2.2, §6.2.2.1). */
function lowerCaseList(value: string | undefined): string[] {
  return commaList(value).map((item) => item.toLowerCase());
}

/** "localhost:8787" → "localhost", "[::1]:8787" → "[::1]". */
function hostname(host: string): string {
  return host.replace(/:\d+$/, "");
}

/** The request's Host, lower-cased: the header, or the URL's host when there is none. */
function requestHost(request: Request): string {
  return (request.headers.get("host") ?? new URL(request.url).host).toLowerCase();
}

/**
 * Why a request's Host is not served (ALLOWED_HOSTS is set and names neither
 * the host nor its name without the port), or null when it is. This is the
 * DNS-rebinding defence: a page on evil.example whose name is rebound to
 * 127.0.0.1 reaches the server with Host evil.example.
 *
 * @example hostRefusal({ ALLOWED_HOSTS: "localhost" }, new Request("http://localhost:8787/v1/x")) // null
 */
export function hostRefusal(env: Pick<Env, "ALLOWED_HOSTS">, request: Request): string | null {
  const allowedHosts = lowerCaseList(env.ALLOWED_HOSTS);
  const host = requestHost(request);
  if (allowedHosts.length === 0 || allowedHosts.includes(host) || allowedHosts.includes(hostname(host))) return null;
  return `Host "${host}" is not served here; allowed hosts: ${allowedHosts.join(", ")}`;
}

/**
 * Whether a browser page on `origin` may call the server: its own origin
 * always may, others when ALLOWED_ORIGINS names them or is "*".
 *
 * @example originIsAllowed({ ALLOWED_ORIGINS: "https://docs.example.com" }, "https://docs.example.com", request) // true
 */
export function originIsAllowed(env: Pick<Env, "ALLOWED_ORIGINS">, origin: string, request: Request): boolean {
  const allowedOrigins = lowerCaseList(env.ALLOWED_ORIGINS);
  const normalized = origin.toLowerCase();
  const ownOrigin = `${new URL(request.url).protocol}//${requestHost(request)}`;
  return normalized === ownOrigin || allowedOrigins.includes("*") || allowedOrigins.includes(normalized);
}
