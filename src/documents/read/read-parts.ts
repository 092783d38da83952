/**
 * Reading pages within a result budget: a page, or one section of it
 * (`name#anchor`), in parts that fit, cut at section boundaries, each part
 * naming the next (`name#~2`, `name#anchor~2`). A page's parts, concatenated,
 * give back the page exactly: a part cut between lines ends with its line
 * break, and a line longer than a part is cut inside (see ./split-text.ts).
 */
import { AlmanacError } from "../../errors.ts";
import { requireDocuments } from "./get-documents.ts";
import { publicViewer, type Viewer } from "../access/visibility.ts";
import { LEAD_ANCHOR, outlineOf, type OutlineHeading, type PageOutline } from "../../markdown/outline.ts";
import type { StoredDocument } from "../document.ts";
import type { D1Reader } from "../../d1/sessions.ts";
import { cutPoint, splitText, type LineStart } from "./split-text.ts";

/** What a name asks for: a document, optionally one section, and which part (or where to continue). */
interface PartName {
  document: string;
  anchor?: string;
  /** 1-based. */
  part: number;
  /** `name#@12345`: the part that starts at this character of the page or section (a continuation of a part cut short). */
  at?: number;
}

/** One entry of a budgeted read. */
export interface DocumentPart extends Pick<StoredDocument, "uri" | "title" | "description" | "content"> {
  /** The name as asked for (with its `#section`), so repeats and sections are told apart. */
  name: string;
  /** Set when a section was asked for. */
  section?: { anchor: string; headingPath: string[] };
  /** Present only when more follows: then `next` names the part that does. */
  truncated?: true;
  next?: string;
  /** Where this part sits: `part` of `parts`; the page's headings, for choosing a section. */
  part: number;
  parts: number;
  outline: OutlineHeading[];
}

/**
 * Splits `documents/x#anchor~3` (or `documents/x#anchor@5120`) into its parts.
 *
 * @example parsePartName("documents/go.dev/ref/mod#go-mod-files~2") // { document: "documents/go.dev/ref/mod", anchor: "go-mod-files", part: 2 }
 */
function parsePartName(name: string): PartName {
  const hash = name.indexOf("#");
  if (hash < 0) return { document: name, part: 1 };
  const fragment = name.slice(hash + 1);
  const match = /^(.*?)(?:~(\d{1,4})|@(\d{1,9}))?$/.exec(fragment);
  const anchor = match?.[1] ?? "";
  const part = Number(match?.[2] ?? "1");
  const at = match?.[3] === undefined ? {} : { at: Number(match[3]) };
  return { document: name.slice(0, hash), ...(anchor ? { anchor } : {}), part: Math.max(1, part), ...at };
}

/** The name of part `part` of what `name` asked for. */
function partName(name: PartName, part: number): string {
  const fragment = `${name.anchor ?? ""}${part > 1 ? `~${part}` : ""}`;
  return fragment ? `${name.document}#${fragment}` : name.document;
}

/** The name that continues what `name` asked for at character `at` of its page or section. */
function continuationName(name: PartName, at: number): string {
  return `${name.document}#${name.anchor ?? ""}@${at}`;
}

/** How much text a read may return. */
export interface ReadBudget {
  /** Size of a part: a fixed number, so a part's name means the same text in every call. */
  partChars: number;
  /** Content of all entries of one call together; at least `partChars` when one name is asked. */
  totalChars: number;
}

/** Below this, a share of a call's budget is too small to read: the entry names itself instead. */
const MIN_SHARE_CHARS = 400;

/**
 * The pages or sections named, in the order asked. A page or section longer
 * than `partChars` comes in parts (cut inside a line when a line is longer
 * than a part). When the entries of a call do not all fit `totalChars`,
 * they share it evenly: one longer than its share is cut short, with `next`
 * continuing right where it stops (`name#@offset`); an entry whose share
 * would be too small to read comes back empty with `next` naming itself.
 * All or nothing: an unknown document or section fails the call, naming every one.
 */
export async function readDocuments(db: D1Reader, names: readonly string[], { partChars, totalChars }: ReadBudget, viewer: Viewer = publicViewer()): Promise<DocumentPart[]> {
  const asked = names.map(parsePartName);
  const found = await requireDocuments(db, asked.map((name) => name.document), names, viewer);

  const outlines = new Map<string, PageOutline>();
  const outlineFor = (doc: StoredDocument) => {
    let outline = outlines.get(doc.name);
    if (!outline) outlines.set(doc.name, (outline = outlineOf(doc.title, doc.content)));
    return outline;
  };
  const problems: string[] = [];
  const plans = asked.map((name) => {
    const doc = found.get(name.document) as StoredDocument;
    const outline = outlineFor(doc);
    const range = rangeOf(outline, name.anchor);
    if (!range) {
      problems.push(`"${name.document}" has no section "${name.anchor}"; the closest are ${closestSections(outline, name.anchor ?? "").map((anchor) => `"${name.document}#${anchor}"`).join(", ")}`);
      return null;
    }
    const { text, starts } = rangeText(outline, range);
    const cuts = splitText(text, starts, 0, partChars);
    const parts = cuts.length - 1;
    const at = name.at;
    if (at !== undefined) {
      if (at >= text.length && !(at === 0 && text.length === 0)) {
        problems.push(`"${continuationName(name, at)}" does not exist: ${partName(name, 1)} has ${text.length} characters`);
        return null;
      }
      const end = cutPoint(text, starts, at, partChars);
      // Reported as the standard part it starts in; the parts after it follow from its own end.
      const part = cuts.filter((cut) => cut <= at).length;
      return { name, doc, outline, range, text, starts, start: at, end, part, parts: Math.max(parts, part) };
    }
    if (name.part > parts) {
      problems.push(`"${partName(name, name.part)}" does not exist: ${partName(name, 1)} has ${parts} part${parts === 1 ? "" : "s"}`);
      return null;
    }
    const start = cuts[name.part - 1] as number;
    const end = cuts[name.part] as number;
    return { name, doc, outline, range, text, starts, start, end, part: name.part, parts };
  });
  if (problems.length > 0) throw new AlmanacError("NOT_FOUND", `${problems.join("; ")}; pass a section name from the page's outline, or the document name alone`);

  const ready = plans as NonNullable<(typeof plans)[number]>[];
  const shares = shareOut(
    ready.map((plan) => plan.end - plan.start),
    totalChars,
  );
  return ready.map((plan, index) => {
    const { name, doc, outline, range, text, starts, start, end, part, parts } = plan;
    const share = shares[index] ?? 0;
    // Cut short to its share at the best place, so the continuation reads on from there.
    const stop = share >= end - start ? end : share > 0 ? cutPoint(text, starts, start, share) : start;
    const entry: DocumentPart = {
      name: name.at === undefined ? partName(name, part) : continuationName(name, name.at),
      uri: doc.uri,
      title: doc.title,
      description: doc.description,
      content: text.slice(start, stop),
      part,
      parts,
      outline: outline.headings,
    };
    if (range.heading) entry.section = { anchor: range.heading.anchor, headingPath: range.heading.path };
    if (stop === start && start < text.length) return { ...entry, truncated: true, next: entry.name };
    if (stop < end) return { ...entry, truncated: true, next: continuationName(name, stop) };
    if (stop < text.length) return { ...entry, truncated: true, next: name.at === undefined ? partName(name, part + 1) : continuationName(name, stop) };
    return entry;
  });
}

/**
 * How many characters each entry may take when they share `total`: all of
 * each when they fit; else an even share (what shorter entries leave goes
 * to the longer ones), in order while the allowance lasts, and none to an
 * entry whose share would be below MIN_SHARE_CHARS.
 *
 * @example shareOut([10_000, 10_000, 10_000], 20_000) // [6_666, 6_666, 6_666]
 */
function shareOut(lengths: readonly number[], total: number): number[] {
  if (lengths.reduce((sum, length) => sum + length, 0) <= total) return [...lengths];
  // The even cap: raise it past every entry shorter than what is left per remaining entry.
  const sorted = [...lengths].sort((a, b) => a - b);
  let left = total;
  let cap = 0;
  for (const [index, length] of sorted.entries()) {
    const even = Math.floor(left / (sorted.length - index));
    if (length > even) {
      cap = even;
      break;
    }
    left -= length;
  }
  cap = Math.max(cap, MIN_SHARE_CHARS);
  let remaining = total;
  return lengths.map((length) => {
    const share = Math.min(length, cap, remaining);
    if (share < Math.min(length, MIN_SHARE_CHARS)) return 0;
    remaining -= share;
    return share;
  });
}

interface LineRange {
  start: number;
  end: number;
  heading?: OutlineHeading;
}

/**
 * The lines a name covers: the whole page, the lead (`intro`), or a section
 * with its sub-sections (up to the next heading of its level or above). A
 * search hit's `x-part-2` id names the section `x`.
 */
function rangeOf(outline: PageOutline, anchor: string | undefined): LineRange | null {
  const { lines, headings } = outline;
  if (anchor === undefined) return { start: 0, end: lines.length };
  const exact = headings.findIndex((heading) => heading.anchor === anchor);
  // A search hit's id `x-part-2` is a piece of the section `x` (or of the lead, `intro-part-2`).
  const section = exact >= 0 ? anchor : anchor.replace(/-part-\d+$/, "");
  if (section === LEAD_ANCHOR) return { start: 0, end: headings[0]?.line ?? lines.length };
  const index = exact >= 0 ? exact : headings.findIndex((heading) => heading.anchor === section);
  const heading = headings[index];
  if (!heading) return null;
  const after = headings.slice(index + 1).find((next) => next.level <= heading.level);
  return { start: heading.line, end: after?.line ?? lines.length, heading };
}

/** A range's text (its lines joined by line breaks) and where each of its lines starts, with what starts there. */
function rangeText(outline: PageOutline, range: LineRange): { text: string; starts: LineStart[] } {
  const { lines } = outline;
  const starts: LineStart[] = [];
  let offset = 0;
  for (let i = range.start; i < range.end; i += 1) {
    if (i > range.start) {
      const previous = lines[i - 1];
      const kind = lines[i]?.heading !== undefined ? "heading" : !previous?.inFence && previous?.text.trim() === "" ? "paragraph" : "line";
      starts.push({ offset, kind });
    }
    offset += (lines[i]?.text.length ?? 0) + 1;
  }
  const text = lines
    .slice(range.start, range.end)
    .map((line) => line.text)
    .join("\n");
  return { text, starts };
}

/** The page's section anchors most like `anchor`, at most three: shared words first, then spelling. */
function closestSections(outline: PageOutline, anchor: string): string[] {
  const words = anchor.split(/[-_]/).filter((word) => word.length >= 3);
  // "revoke" and "revoking" share a word: four letters in common at the start are enough.
  const shares = (a: string, b: string) => a.slice(0, 4) === b.slice(0, 4) && Math.min(a.length, b.length) >= 4;
  const sharedWords = (candidate: string) => words.filter((word) => candidate.split(/[-_]/).some((other) => shares(word, other))).length;
  return outline.headings
    .map((heading) => ({ anchor: heading.anchor, distance: editDistance(anchor, heading.anchor) - 10 * sharedWords(heading.anchor) }))
    .sort((a, b) => a.distance - b.distance)
    .slice(0, 3)
    .map((candidate) => candidate.anchor)
    .concat(outline.headings.length === 0 ? [LEAD_ANCHOR] : []);
}

/** Levenshtein distance, for suggesting a section name; anchors are short. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
