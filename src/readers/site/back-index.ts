/**
 * A site's own back-of-book index (Sphinx's genindex, DocBook's bookindex,
 * SQLite's keyword index, Doxygen's member lists), recognised by what the
 * page is, not by one theme's class names: its article is mostly short
 * entries in alphabetical order, each linking to another page of the site.
 * Such a page says which words a page is about, words its own text may never
 * use ("UPSERT" for the INSERT page): the reader hands its entries over, and
 * the run attaches each term to the page (and section) it points to.
 */
import type { Element } from "hast";
import { toText } from "hast-util-to-text";
import { childElements } from "./parse-html.ts";

/** One term of the index and the page (with its fragment, when it names a section) it points to. */
export interface IndexEntry {
  term: string;
  /** Absolute, as crawled, fragment kept. */
  url: string;
}

/** Fewer entries than this say nothing: a short list of links is a page's own "see also". */
const MIN_ENTRIES = 30;

/** An entry longer than this is prose with a link in it, not a term. */
const MAX_ENTRY_CHARS = 120;

/** The entries must carry at least this share of the article's text: the page is the index, not a page with a list. */
const ENTRY_TEXT_SHARE = 0.6;

/** At least this share of neighbouring entries in alphabetical order (an index is sorted; a table of contents follows the book). */
const SORTED_SHARE = 0.85;

/** Elements that hold one entry each. */
const ENTRY_TAGS = new Set(["li", "dt", "tr"]);
/** Elements that hold the entries below an entry (its sub-terms), read as entries of their own. */
const NESTED_TAGS = new Set(["ul", "ol", "dl", "dd", "table"]);

interface Entry {
  /** The entry's own words, its sub-entries' left out. */
  text: string;
  /** Its links to other pages, with their texts. */
  links: { url: string; text: string }[];
  /** The words of the entry it is a sub-entry of ("--build" above "cmake command line option"). */
  parent: string;
}

/**
 * The index's entries when `content` (the page's article) is a back-of-book
 * index of the site at `pageUrl`; undefined for any other page. A term is
 * the entry's words (its parent entry's before them) without the texts of
 * its other links, so a row "alarm_handler | sasl-4.2" gives each page its
 * own name only.
 *
 * @example backOfBookIndex(article, "https://sqlite.org/keyword_index.html")?.[0] // { term: "upsert clause", url: "https://sqlite.org/lang_upsert.html" }
 */
export function backOfBookIndex(content: Element, pageUrl: string): IndexEntry[] | undefined {
  const page = new URL(pageUrl);
  const lists = new Map<Element, Entry[]>();
  const walk = (node: Element, parent: string): void => {
    // DocBook puts a term's sub-terms in the <dd> after its <dt>.
    let term = parent;
    for (const child of childElements(node)) {
      if (!ENTRY_TAGS.has(child.tagName)) {
        walk(child, child.tagName === "dd" ? term : parent);
        continue;
      }
      const entry = readEntry(child, page, parent);
      if (entry.text.length <= MAX_ENTRY_CHARS && entry.links.length > 0) lists.set(node, [...(lists.get(node) ?? []), entry]);
      term = entry.text.length <= MAX_ENTRY_CHARS ? squash(`${parent} ${entry.text}`) : parent;
      walk(child, term);
    }
  };
  walk(content, "");
  // A list in the book's order (a menu, a table of contents) is not the index, wherever it sits.
  const entries = [...lists.values()].filter((list) => !isNumbered(list) && isSorted(list)).flat();
  if (entries.length < MIN_ENTRIES) return undefined;
  const entryChars = entries.reduce((sum, entry) => sum + entry.text.length, 0);
  if (entryChars < ENTRY_TEXT_SHARE * squash(toText(content)).length) return undefined;
  return entries.flatMap((entry) =>
    entry.links.map((link) => {
      const others = entry.links.filter((other) => other !== link).reduce((text, other) => text.replace(other.text, " "), entry.text);
      return { term: squash(`${entry.parent} ${others}`), url: link.url };
    }),
  );
}

/** A section number opening an entry ("2.", "2.1.", "10.3 "): an index's entries are words. */
const SECTION_NUMBER = /^\d+(\.\d+)*\.?\s/;

/**
 * True when most entries open with a section number: a table of contents,
 * whose numbers sort like words ("1. Whetting Your Appetite", "2. Using…").
 */
function isNumbered(entries: readonly Entry[]): boolean {
  return entries.filter((entry) => SECTION_NUMBER.test(entry.text)).length * 2 > entries.length;
}

/** True when the entries of one list are (almost all) in alphabetical order. */
function isSorted(entries: readonly Entry[]): boolean {
  const keys = entries.map((entry) => sortKey(entry.text));
  let sorted = 0;
  for (let i = 1; i < keys.length; i += 1) if ((keys[i - 1] as string) <= (keys[i] as string)) sorted += 1;
  return sorted >= SORTED_SHARE * (keys.length - 1);
}

/** An entry's own words and links: what sits in it outside its nested lists. */
function readEntry(element: Element, page: URL, parent: string): Entry {
  const words: string[] = [];
  const links: Entry["links"] = [];
  const walk = (node: Element): void => {
    for (const child of node.children) {
      if (child.type === "text") words.push(child.value);
      if (child.type !== "element" || NESTED_TAGS.has(child.tagName) || ENTRY_TAGS.has(child.tagName)) continue;
      if (child.tagName === "a" && typeof child.properties.href === "string") {
        const url = otherPage(child.properties.href, page);
        if (url) links.push({ url, text: squash(toText(child)) });
      }
      walk(child);
    }
  };
  walk(element);
  return { text: squash(words.join(" ")), links, parent };
}

/** The absolute URL of `href` when it is another page of the same origin; undefined for this page's own fragments and other sites. */
function otherPage(href: string, page: URL): string | undefined {
  try {
    const url = new URL(href.trim(), page);
    if (url.origin !== page.origin || url.pathname === page.pathname) return undefined;
    return url.href;
  } catch {
    return undefined;
  }
}

/** How an index orders its terms: letters and digits only, case folded ("%q", "3rd-party", "about", "ACID"). */
function sortKey(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");
}

function squash(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
