// Google's `fields` system parameter (partial responses): which fields of a
// response to keep, e.g. `results(parent,document/title),nextPageToken`.
import { AlmanacError } from "../errors.ts";

/** The fields to keep: each name maps to `true` (the whole field) or the selection inside it. */
export type FieldMask = Map<string, FieldMask | true>;

/** Long enough for any selection of these responses' fields, short enough to parse at no cost. */
const MAX_FIELDS_LENGTH = 1000;

/** `next_page_token` → `nextPageToken`: Google accepts proto names in `fields` too. */
function camelCase(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

/**
 * Parses a `fields` value: comma-separated paths, `a/b` for a field inside a
 * field, `a(b,c)` for several inside one, `*` for every field. A malformed
 * selection is INVALID_ARGUMENT saying where it goes wrong.
 *
 * @example parseFieldMask("results(parent,document/title),nextPageToken")
 */
export function parseFieldMask(text: string): FieldMask {
  if (text.length > MAX_FIELDS_LENGTH) throw new AlmanacError("INVALID_ARGUMENT", `fields must be at most ${MAX_FIELDS_LENGTH} characters`);
  let at = 0;
  const fail = (what: string): never => {
    throw new AlmanacError("INVALID_ARGUMENT", `fields "${text.slice(0, 80)}" is not a valid field selection: ${what} at character ${at + 1}`);
  };
  const selection = (): FieldMask => {
    const mask: FieldMask = new Map();
    for (;;) {
      const path: string[] = [];
      for (;;) {
        const name = /^(\*|[A-Za-z_][A-Za-z0-9_]*)/.exec(text.slice(at))?.[0];
        if (!name) fail("expected a field name");
        path.push(camelCase(name as string));
        at += (name as string).length;
        if (text[at] !== "/") break;
        at += 1;
      }
      let inner: FieldMask | true = true;
      if (text[at] === "(") {
        at += 1;
        inner = selection();
        if (text[at] !== ")") fail('expected ")"');
        at += 1;
      }
      merge(mask, path, inner);
      if (text[at] !== ",") return mask;
      at += 1;
    }
  };
  const mask = selection();
  if (at < text.length) fail(`unexpected "${text[at]}"`);
  return mask;
}

/** Adds `path` (with `inner` at its end) to `mask`; a whole field absorbs any narrower selection of it. */
function merge(mask: FieldMask, path: readonly string[], inner: FieldMask | true): void {
  const [head, ...rest] = path as [string, ...string[]];
  const wanted: FieldMask | true = rest.length === 0 ? inner : new Map();
  if (wanted !== true && rest.length > 0) merge(wanted, rest, inner);
  const existing = mask.get(head);
  if (existing === true || wanted === true) {
    mask.set(head, true);
    return;
  }
  if (!existing) {
    mask.set(head, wanted);
    return;
  }
  for (const [name, sub] of wanted) {
    const previous = existing.get(name);
    if (previous === undefined || sub === true) existing.set(name, sub);
    else if (previous !== true) merge(existing, [name], sub);
  }
}

/**
 * The parts of a JSON value the mask selects. A list is selected item by
 * item; a field the response does not have (an absent nextPageToken) is
 * simply not there.
 *
 * @example applyFieldMask({ a: 1, b: { c: 2, d: 3 } }, parseFieldMask("b/c")) // { b: { c: 2 } }
 */
export function applyFieldMask(value: unknown, mask: FieldMask): unknown {
  if (Array.isArray(value)) return value.map((item) => applyFieldMask(item, mask));
  if (value === null || typeof value !== "object") return value;
  const object = value as Record<string, unknown>;
  const selected: Record<string, unknown> = {};
  for (const [name, inner] of mask) {
    const names = name === "*" ? Object.keys(object) : [name];
    for (const key of names) {
      if (!(key in object)) continue;
      selected[key] = inner === true ? object[key] : applyFieldMask(object[key], inner);
    }
  }
  return selected;
}
