import { ENHANCE_SCRIPT } from "./enhance.ts";
import { STYLES } from "./styles.ts";

async function sha256Base64(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return btoa(String.fromCharCode(...new Uint8Array(digest)));
}

let policy: Promise<string> | undefined;

/**
 * The Content-Security-Policy of every page: nothing runs or loads but the
 * page's own inline script and stylesheet (by hash), fetches go only to
 * this server, forms post only here, and no other site may frame the page
 * (a framed ask form could be clicked into spending a visitor's quota).
 */
function contentSecurityPolicy(): Promise<string> {
  policy ??= Promise.all([sha256Base64(ENHANCE_SCRIPT), sha256Base64(STYLES)]).then(
    ([script, style]) =>
      `default-src 'none'; script-src 'sha256-${script}'; style-src 'sha256-${style}'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
  );
  return policy;
}

/**
 * Headers for every HTML answer of the landing site. `no-store`: a page
 * shows its caller's own allowance, and an answer costs quota, so no cache
 * may keep or share one.
 */
export async function pageHeaders(): Promise<Record<string, string>> {
  return {
    "Content-Security-Policy": await contentSecurityPolicy(),
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
  };
}
