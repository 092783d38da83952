// The ids a site gives its sections, found where each generator puts them,
// so a search result links to a fragment the live page has.
import type { Element, ElementContent } from "hast";
import { select, selectAll } from "hast-util-select";
import { LEAD_ANCHOR, UsedAnchors } from "../../markdown/outline.ts";
import { childElements } from "./parse-html.ts";

const HEADING = /^h[1-6]$/;
/** The anchors src/markdown/page.ts reads from `{#id}`. */
const ANCHOR = /^[\w.:-]+$/;

/**
 * Gives each heading the id the site links to, as a `data-anchor` the
 * Markdown handler writes as `{#id}`: the heading's own id, else its
 * permalink's fragment (Sphinx's `a.headerlink`), else the id of the nearest
 * element it opens (Sphinx's `<section>`, DocBook's `div.sect1` three levels
 * above its `h2`: any ancestor whose first heading it is), else an empty
 * `<span id>` just before it. Sphinx API entries (`<dl class="py function"><dt
 * class="sig" id="sorted">`) become headings one level below the heading
 * before them, so each function is a section of its own that search results link to.
 */
export function anchorHeadings(content: Element): void {
  let level = 1;
  // The elements being walked, outermost first; those from `headed` on hold no heading met so far.
  const open: Element[] = [];
  let headed = 0;
  const walk = (node: Element): void => {
    open.push(node);
    // Kept as the children go by, so a parent of many headings is read once, not once a heading.
    let before: ElementContent | undefined;
    for (const child of node.children) {
      const previous = before;
      if (child.type === "element" || (child.type === "text" && child.value.trim() !== "")) before = child;
      if (child.type !== "element") continue;
      if (HEADING.test(child.tagName)) {
        level = Number(child.tagName[1]);
        const opened = open.slice(headed).reverse();
        headed = open.length;
        const id = headingId(child, opened, previous);
        if (id) child.properties.dataAnchor = id;
        continue;
      }
      if (child.tagName === "dl" && childElements(child).some(isApiEntry)) {
        apiEntries(child, level);
        continue;
      }
      walk(child);
    }
    open.pop();
    headed = Math.min(headed, open.length);
  };
  const apiEntries = (dl: Element, parentLevel: number): void => {
    const depth = Math.min(parentLevel + 1, 6);
    dl.tagName = "div";
    for (const item of childElements(dl)) {
      if (item.tagName === "dt" && isApiEntry(item)) {
        item.tagName = `h${depth}`;
        item.properties.dataAnchor = item.properties.id;
        item.properties.dataSignature = true;
      } else if (item.tagName === "dd") {
        item.tagName = "div";
        level = depth;
        walk(item);
      }
    }
    level = parentLevel;
  };
  walk(content);
  anchorUnnamedHeadings(content);
}

/**
 * A heading the page gives no id, or an id an earlier heading already has (a
 * browser scrolls to the first: Erlang repeats `id="types"` in every
 * function), gets one that links where a browser can go: the anchor of the
 * nearest named heading before it (the page itself before the first) with
 * `-part-N`, the suffix search results drop from a link, as they do for a
 * long section's further pieces. An invented slug would link to a fragment
 * the page does not have.
 */
function anchorUnnamedHeadings(content: Element): void {
  const headings = selectAll("h1, h2, h3, h4, h5, h6", content);
  const anchors = new UsedAnchors(headings.flatMap((heading) => (typeof heading.properties.dataAnchor === "string" ? [heading.properties.dataAnchor] : [])));
  const named = new Set<string>();
  let before = LEAD_ANCHOR;
  for (const heading of headings) {
    const own = heading.properties.dataAnchor;
    if (typeof own === "string" && !named.has(own)) {
      named.add(own);
      before = own;
      continue;
    }
    heading.properties.dataAnchor = anchors.claimPart(before, 2);
  }
}

/** Sphinx marks an API entry's signature `<dt class="sig …" id="…">`. */
function isApiEntry(dt: Element): boolean {
  const classes = dt.properties.className;
  return dt.tagName === "dt" && typeof dt.properties.id === "string" && Array.isArray(classes) && classes.includes("sig");
}

/**
 * The heading's anchor; `opened` are the elements it is the first heading of, nearest first,
 * `before` the element or text just before it.
 */
function headingId(heading: Element, opened: readonly Element[], before: ElementContent | undefined): string | undefined {
  // An empty anchor inside the heading (`<h2><span id="setup"></span>Set up</h2>`) names it as well as its own id.
  const inner = selectAll("[id], a[name]", heading).find((element) => element.children.length === 0);
  const candidates: unknown[] = [heading.properties.id, inner?.properties.id ?? inner?.properties.name];
  const permalink = select("a[href^='#']", heading)?.properties.href;
  if (typeof permalink === "string") candidates.push(decodeFragment(permalink.slice(1)));
  candidates.push(...opened.map((element) => element.properties.id));
  if (before?.type === "element" && (before.tagName === "span" || before.tagName === "a") && before.children.length === 0) candidates.push(before.properties.id ?? before.properties.name);
  return candidates.find((id): id is string => typeof id === "string" && ANCHOR.test(id));
}

function decodeFragment(fragment: string): string {
  try {
    return decodeURIComponent(fragment);
  } catch {
    return fragment;
  }
}
