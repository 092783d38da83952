// The landing site through the Worker's own fetch handler, and the little
// HTML reading its tests need (workerd has HTMLRewriter, not a DOM).
import { exports } from "cloudflare:workers";

export const ORIGIN = "https://almanac.test";

/** A visitor's address, so anonymous tests count on a counter of their own. */
export function visitor(address: string): Record<string, string> {
  return { "CF-Connecting-IP": address };
}

/** A GET of a page path, as a browser's address bar sends it. */
export async function getPage(path: string, headers: Record<string, string> = {}): Promise<{ response: Response; html: string }> {
  const response = await exports.default.fetch(new Request(`${ORIGIN}${path}`, { headers }));
  return { response, html: await response.text() };
}

/** A form POST from the page itself (browsers send Origin with every POST). */
export async function postForm(path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<{ response: Response; html: string }> {
  const response = await exports.default.fetch(
    new Request(`${ORIGIN}${path}`, {
      method: "POST",
      headers: { Origin: ORIGIN, "Content-Type": "application/x-www-form-urlencoded", ...headers },
      body: new URLSearchParams(fields),
    }),
  );
  return { response, html: await response.text() };
}

function decode(text: string): string {
  return text
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'")
    .replaceAll("&amp;", "&");
}

/** The text of every element `selector` matches, in document order, entities decoded, whitespace as in the source. */
export async function texts(html: string, selector: string): Promise<string[]> {
  const found: string[] = [];
  await new HTMLRewriter()
    .on(selector, {
      element() {
        found.push("");
      },
      text(chunk) {
        found[found.length - 1] += chunk.text;
      },
    })
    .transform(new Response(html))
    .text();
  return found.map(decode);
}

/** The text of the one element `selector` matches; throws when it matches none. */
export async function text(html: string, selector: string): Promise<string> {
  const [first] = await texts(html, selector);
  if (first === undefined) throw new Error(`nothing matches ${selector}`);
  return first;
}

/** An attribute of every element `selector` matches (null where absent). */
export async function attributes(html: string, selector: string, name: string): Promise<(string | null)[]> {
  const found: (string | null)[] = [];
  await new HTMLRewriter()
    .on(selector, {
      element(element) {
        const value = element.getAttribute(name);
        found.push(value === null ? null : decode(value));
      },
    })
    .transform(new Response(html))
    .text();
  return found;
}
