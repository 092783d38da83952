/**
 * Reading pages within a result budget: a page, or one section of it
 * (`name#anchor`), in parts that fit, cut at section boundaries, each part
 * naming the next (`name#~2`, `name#anchor~2`). Joining a page's parts with
 * "\n" gives back the page exactly.
 */
import { AlmanacError } from "../../errors.ts";
import { requireDocuments } from "./get-documents.ts";
import { LEAD_ANCHOR, outlineOf, type OutlineHeading, type PageOutline } from "../outline.ts";
import type { StoredDocument } from "../document.ts";
import type { D1Reader } from "../../d1/sessions.ts";

/** What a name asks for: a document, optionally one section, and which part. */
export interface PartName {
  document: string;
  anchor?: string;
  /** 1-based. */
  part: number;
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
 * Splits `documents/x#anchor~3` into its parts.
 *
 * @example parsePartName("documents/go.dev/ref/mod#go-mod-files~2") // { document: "documents/go.dev/ref/mod", anchor: "go-mod-files", part: 2 }
 */
export function parsePartName(name: string): PartName {
  const hash = name.indexOf("#");
  if (hash < 0) return { document: name, part: 1 };
  const fragment = name.slice(hash + 1);
  const match = /^(.*?)(?:~(\d{1,4}))?$/.exec(fragment);
  const anchor = match?.[1] ?? "";
  const part = Number(match?.[2] ?? "1");
  return { document: name.slice(0, hash), ...(anchor ? { anchor } : {}), part: Math.max(1, part) };
}

/** The name of part `part` of what `name` asked for. */
function partName(name: PartName, part: number): string {
  const fragment = `${name.anchor ?? ""}${part > 1 ? `~${part}` : ""}`;
  return fragment ? `${name.document}#${fragment}` : name.document;
}

/** How much text a read may return. */
export interface ReadBudget {
  /** Size of a part: a fixed number, so a part's name means the same text in every call. */
  partChars: number;
  /** Content of all entries of one call together; at least `partChars` when one name is asked. */
  totalChars: number;
}

/**
 * The pages or sections named, in the order asked. A page or section longer
 * than `partChars` comes in parts; once `totalChars` is spent, the remaining
 * entries come back empty with `next` naming what to ask for. All or nothing:
 * an unknown document or section fails the call, naming every one.
 */
export async function readDocuments(db: D1Reader, names: readonly string[], { partChars, totalChars }: ReadBudget): Promise<DocumentPart[]> {
  const asked = names.map(parsePartName);
  const found = await requireDocuments(db, asked.map((name) => name.document), names);

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
    const parts = splitRange(outline, range, partChars);
    if (name.part > parts.length) {
      problems.push(`"${partName(name, name.part)}" does not exist: ${partName(name, 1)} has ${parts.length} part${parts.length === 1 ? "" : "s"}`);
      return null;
    }
    return { name, doc, outline, range, parts };
  });
  if (problems.length > 0) throw new AlmanacError("NOT_FOUND", `${problems.join("; ")}; pass a section name from the page's outline, or the document name alone`);

  let remaining = totalChars;
  return plans.map((plan, index) => {
    const { name, doc, outline, range, parts } = plan as NonNullable<typeof plan>;
    const [start, end] = parts[name.part - 1] as [number, number];
    const content = outline.lines.slice(start, end).map((line) => line.text).join("\n");
    // A single line longer than a part is never cut; alone at the head of a call it is served whole.
    const fits = content.length <= remaining || (index === 0 && end - start === 1);
    // An entry that does not fit leaves the allowance to the entries after it, which may be smaller.
    if (fits) remaining -= content.length;
    const entry: DocumentPart = {
      name: partName(name, name.part),
      uri: doc.uri,
      title: doc.title,
      description: doc.description,
      content: fits ? content : "",
      part: name.part,
      parts: parts.length,
      outline: outline.headings,
    };
    if (range.heading) entry.section = { anchor: range.heading.anchor, headingPath: range.heading.path };
    if (!fits) return { ...entry, truncated: true, next: partName(name, name.part) };
    if (name.part < parts.length) return { ...entry, truncated: true, next: partName(name, name.part + 1) };
    return entry;
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

/**
 * Cuts a range into parts of at most `budget` characters: at the last
 * heading that fits, else the last paragraph break, else the last line,
 * preferring a cut that fills at least half the budget. A line is never
 * cut; a single line longer than the budget is a part of its own.
 */
function splitRange(outline: PageOutline, range: LineRange, budget: number): [number, number][] {
  const { lines } = outline;
  // offsets[i]: characters before line i within the range, each line followed by its "\n".
  const offsets = [0];
  for (let i = range.start; i < range.end; i += 1) offsets.push((offsets[offsets.length - 1] ?? 0) + (lines[i]?.text.length ?? 0) + 1);
  const length = (from: number, to: number) => (offsets[to - range.start] ?? 0) - (offsets[from - range.start] ?? 0) - 1;
  const isHeading = (i: number) => lines[i]?.heading !== undefined;
  const isParagraph = (i: number) => !lines[i - 1]?.inFence && lines[i - 1]?.text.trim() === "";
  const parts: [number, number][] = [];
  let start = range.start;
  while (start < range.end) {
    if (length(start, range.end) <= budget) {
      parts.push([start, range.end]);
      break;
    }
    let furthest = start + 1;
    while (furthest + 1 <= range.end && length(start, furthest + 1) <= budget) furthest += 1;
    const lastCut = (accept: (i: number) => boolean) => {
      for (let i = furthest; i > start; i -= 1) if (accept(i) && length(start, i) >= budget / 2) return i;
      return null;
    };
    const cut = lastCut(isHeading) ?? lastCut(isParagraph) ?? furthest;
    parts.push([start, cut]);
    start = cut;
  }
  return parts.length > 0 ? parts : [[range.start, range.end]];
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
