/**
 * Where a text too long for one result is cut: at a heading, else a
 * paragraph, else a line, else a space inside a line, else anywhere (never
 * inside a surrogate pair). Nothing is dropped: the pieces, concatenated,
 * are the text, however long its lines.
 */

/** Where a line starts within a text, and what starts there: the places a cut reads best. */
export interface LineStart {
  offset: number;
  kind: "line" | "paragraph" | "heading";
}

/** Cut kinds from best to worst; a cut must also fill at least half the room. */
const PREFERENCE: readonly LineStart["kind"][] = ["heading", "paragraph", "line"];

/**
 * The end of the piece that starts at `from` and takes at most `room`
 * characters (at least one): the best cut that fills at least half the room,
 * or all that is left when it fits.
 *
 * @example cutPoint("ab\ncd", [{ offset: 3, kind: "line" }], 0, 4) // 3: "ab\n", then "cd"
 */
export function cutPoint(text: string, starts: readonly LineStart[], from: number, room: number): number {
  const limit = from + Math.max(1, room);
  if (text.length <= limit) return text.length;
  const half = from + room / 2;
  // starts are in order: walk back from the last one that fits, down to half the room.
  let index = lastStartAtOrBefore(starts, limit);
  const best = new Map<LineStart["kind"], number>();
  for (; index >= 0; index -= 1) {
    const start = starts[index] as LineStart;
    if (start.offset < half || start.offset <= from) break;
    if (!best.has(start.kind)) best.set(start.kind, start.offset);
    if (start.kind === "heading") break;
  }
  for (const kind of PREFERENCE) {
    const offset = best.get(kind);
    if (offset !== undefined) return offset;
  }
  // One line longer than the room: after the last space or tab that fills half of it…
  for (let i = limit; i > half && i > from + 1; i -= 1) {
    const char = text.charCodeAt(i - 1);
    if (char === 0x20 || char === 0x09) return i;
  }
  // …else anywhere but between the two halves of a surrogate pair.
  const high = text.charCodeAt(limit - 1);
  return high >= 0xd800 && high <= 0xdbff && limit - 1 > from ? limit - 1 : limit;
}

/**
 * The offsets that cut `text` from `from` into pieces of at most `room`
 * characters: `[from, …, text.length]`.
 */
export function splitText(text: string, starts: readonly LineStart[], from: number, room: number): number[] {
  const cuts = [from];
  let at = from;
  while (at < text.length) {
    at = cutPoint(text, starts, at, room);
    cuts.push(at);
  }
  if (cuts.length === 1) cuts.push(text.length);
  return cuts;
}

function lastStartAtOrBefore(starts: readonly LineStart[], offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if ((starts[middle] as LineStart).offset <= offset) {
      found = middle;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  return found;
}
