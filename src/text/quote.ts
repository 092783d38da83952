/**
 * How much of what a caller sent an error message, error data, log line or
 * page quotes back: enough to recognise the value, never a multi-megabyte
 * echo (issue 24: a 3 MB id was quoted whole, twice).
 */
export const MAX_QUOTED_CHARS = 200;

/**
 * `text` whole when it is short, else its first MAX_QUOTED_CHARS characters
 * and a marker saying how long it was. Never ends inside a surrogate pair.
 *
 * @example quoted("x".repeat(3_000_000)) // "xxx…x…(3000000 characters)"
 */
export function quoted(text: string, max: number = MAX_QUOTED_CHARS): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  const cut = last >= 0xd800 && last <= 0xdbff ? max - 1 : max;
  return `${text.slice(0, cut)}…(${text.length} characters)`;
}

/**
 * A JSON value with every string in it quoted (object keys too) and arrays
 * cut to their first `maxItems`: for error `data` that may carry what a caller sent.
 */
export function quotedDeep(value: unknown, maxItems = 20, depth = 0): unknown {
  if (typeof value === "string") return quoted(value);
  if (depth > 8 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.slice(0, maxItems).map((item) => quotedDeep(item, maxItems, depth + 1));
  return Object.fromEntries(
    Object.entries(value)
      .slice(0, maxItems)
      .map(([key, item]) => [quoted(key), quotedDeep(item, maxItems, depth + 1)]),
  );
}
