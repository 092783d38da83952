/**
 * One HTML page of a documentation site as Markdown the pipeline reads: the
 * article only (never navigation, sidebars, footers or hidden text), headings
 * with the page's own ids as `{#id}` anchors (src/markdown/page.ts), code
 * byte for byte with its language, tables as GFM tables, links absolute.
 * Pure functions on strings: they run in a Worker as in the CLI. Every walk
 * is linear in the page (parse-html.ts bounds the depth the recursive ones see).
 */
import type { Element, ElementContent, Root } from "hast";
import { select, selectAll } from "hast-util-select";
import { defaultHandlers, toMdast, type Handle, type State } from "hast-util-to-mdast";
import { toText } from "hast-util-to-text";
import type { Code, Heading, Nodes as MdastNodes } from "mdast";
import { gfmStrikethroughToMarkdown } from "mdast-util-gfm-strikethrough";
import { gfmTableToMarkdown } from "mdast-util-gfm-table";
import { toMarkdown } from "mdast-util-to-markdown";
import { HIDING_STYLE } from "../../markdown/hidden-html.ts";
import { LEAD_ANCHOR, UsedAnchors } from "../../documents/outline.ts";
import { parseHtml } from "./parse-html.ts";

/** A page read from its HTML. */
export interface HtmlPage {
  /** og:title, else the <title> (without the site's name after the first h1), else the first h1; "" when none. */
  title: string;
  /** The meta description, "" when none. */
  description: string;
  /** The main content as Markdown; "" when the page has none. */
  markdown: string;
  /** The page's `<link rel="canonical">` resolved against its URL, when it has one. */
  canonical?: string;
  /** Every `<a href>` of the whole page (navigation included: that is how pages are found), absolute, without fragment. */
  links: string[];
}

/** How to read one page. */
export interface HtmlPageOptions {
  /** The URL the page was fetched from: relative links resolve against it. */
  url: string;
  /** Maps an absolute crawled URL onto the public one (`--base-uri`); identity when absent. */
  publicUrl?: (url: string) => string;
  /** A CSS selector for the main content, tried before `main`, `[role=main]` and `article`. */
  contentSelector?: string;
}

/** Where the article is, most specific first; the body (stripped of chrome) when none matches. */
const MAIN_SELECTORS = ["main", "[role=main]", "article"];

/** Elements that are page chrome or not text, wherever they sit. */
const CHROME_TAGS = new Set(["script", "style", "noscript", "template", "iframe", "form", "button", "input", "select", "textarea", "svg", "canvas", "dialog", "nav", "aside", "footer"]);
const CHROME_ROLES = new Set(["navigation", "banner", "contentinfo", "complementary", "search"]);
/** Sphinx's ¶ permalinks, related-pages bar, sidebars and line numbers; other generators' prev/next bars and breadcrumbs. */
const CHROME_CLASSES = new Set(["headerlink", "related", "sphinxsidebar", "prev-next-area", "pagination", "breadcrumbs", "breadcrumb", "linenos", "copybutton"]);

/** Page chrome: navigation, banners, footers, sidebars, previous/next links, permalinks, forms and scripts. */
function isChrome(element: Element): boolean {
  if (CHROME_TAGS.has(element.tagName)) return true;
  const { role, rel, className } = element.properties;
  if (typeof role === "string" && CHROME_ROLES.has(role)) return true;
  if (Array.isArray(rel) && rel.some((value) => value === "prev" || value === "next")) return true;
  if (Array.isArray(className) && className.some((name) => CHROME_CLASSES.has(String(name)))) return true;
  // A <header> that holds no heading is a site banner; one around the page's h1 is part of the article.
  return element.tagName === "header" && !select("h1, h2, h3, h4, h5, h6", element);
}

/**
 * Reads the page: its title, description, canonical link, links, and its
 * main content as Markdown.
 *
 * @example htmlToPage('<title>A</title><main><h2 id="x">Hi</h2><p>Yo</p></main>', { url: "https://a.dev/" }).markdown // "## Hi {#x}\n\nYo"
 */
export function htmlToPage(html: string, options: HtmlPageOptions): HtmlPage {
  const tree = parseHtml(html);
  const base = baseUrl(tree, options.url);
  const publicUrl = options.publicUrl ?? ((url: string) => url);
  const links = pageLinks(tree, base);
  const content = mainContent(tree, options.contentSelector);
  if (content) {
    // Anchors first: a heading's permalink (pruned as chrome) names its id.
    anchorHeadings(content);
    markCodeLanguages(content);
    prune(content);
    flattenTableCells(content);
  }
  // The h1 of the pruned article has no permalink "¶" in its text.
  const h1 = (content && select("h1", content)) ?? select("h1", tree);
  const firstH1 = h1 ? squash(toText(h1)) : "";
  const documentTitle = squash(select("head > title", tree) ? toText(select("head > title", tree) as Element) : "");
  const ogTitle = metaContent(tree, "meta[property='og:title']");
  const title = ogTitle || siteTitle(documentTitle, firstH1) || firstH1;
  const description = metaContent(tree, "meta[name=description]") || metaContent(tree, "meta[property='og:description']");
  const canonicalHref = select("link[rel~=canonical][href]", tree)?.properties.href;
  const canonical = typeof canonicalHref === "string" ? resolve(canonicalHref, base) : undefined;
  if (!content) return { title, description, markdown: "", canonical, links };
  absolutize(content, base, publicUrl);
  return { title, description, markdown: toMarkdownText(content), canonical, links };
}

/** The `<base href>` when the page has one, else its own URL. */
function baseUrl(tree: Root, url: string): string {
  const href = select("base[href]", tree)?.properties.href;
  return typeof href === "string" ? (resolve(href, url) ?? url) : url;
}

function resolve(href: string, base: string): string | undefined {
  try {
    return new URL(href.trim(), base).href;
  } catch {
    return undefined;
  }
}

function squash(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function metaContent(tree: Root, selector: string): string {
  const content = select(selector, tree)?.properties.content;
  return typeof content === "string" ? squash(content) : "";
}

/** "Sorting HOW TO — Python 3.11 documentation" is the h1 plus the site's name: the h1 is the page's title. */
function siteTitle(documentTitle: string, firstH1: string): string {
  if (firstH1 && documentTitle.startsWith(firstH1) && /^\s*[-–—|:·»]/.test(documentTitle.slice(firstH1.length))) return firstH1;
  return documentTitle;
}

/** Absolute http(s) links without fragment, deduplicated, in page order. */
function pageLinks(tree: Root, base: string): string[] {
  const links = new Set<string>();
  for (const anchor of selectAll("a[href]", tree)) {
    const href = anchor.properties.href;
    if (typeof href !== "string") continue;
    const url = resolve(href, base);
    if (!url || !/^https?:/.test(url)) continue;
    links.add(url.replace(/#.*$/, ""));
  }
  return [...links];
}

/**
 * The article: the content selector, `main`, `[role=main]`, `article`, else
 * the body; visible elements only. Several matches side by side (Erlang's
 * docs make each function an `<article>`) are items of the page, not the
 * page: the content is the element that holds them all.
 */
function mainContent(tree: Root, contentSelector: string | undefined): Element | undefined {
  const hidden = hiddenElements(tree);
  const body = select("body", tree) ?? undefined;
  for (const selector of contentSelector ? [contentSelector, ...MAIN_SELECTORS] : MAIN_SELECTORS) {
    const found = selectAll(selector, tree).filter((element) => !hidden.has(element));
    if (found.length === 1) return found[0];
    if (found.length > 1) return holderOf(tree, found) ?? body;
  }
  return body;
}

/** The nearest element that holds every one of `elements` (one of them, when it holds the others). */
function holderOf(tree: Root, elements: readonly Element[]): Element | undefined {
  const parents = new Map<Element, Element | undefined>();
  const stack: (Root | Element)[] = [tree];
  for (let node = stack.pop(); node; node = stack.pop()) {
    for (const child of node.children) {
      if (child.type !== "element") continue;
      parents.set(child, node.type === "element" ? node : undefined);
      stack.push(child);
    }
  }
  const chain = (element: Element): Element[] => {
    const ancestors: Element[] = [];
    for (let at: Element | undefined = element; at; at = parents.get(at)) ancestors.push(at);
    return ancestors;
  };
  let common = chain(elements[0] as Element);
  for (const element of elements.slice(1)) {
    const others = new Set(chain(element));
    common = common.filter((ancestor) => others.has(ancestor));
  }
  return common[0];
}

/**
 * Every element hidden itself or by an ancestor, in one walk of the page
 * (asking per candidate walked the page once for each: 20,000 hidden
 * `<main>`s took 15 s).
 */
function hiddenElements(tree: Root): Set<Element> {
  const hidden = new Set<Element>();
  const stack: [Root | Element, boolean][] = [[tree, false]];
  for (let entry = stack.pop(); entry; entry = stack.pop()) {
    const [node, hiddenAbove] = entry;
    for (const child of node.children) {
      if (child.type !== "element") continue;
      const hiddenHere = hiddenAbove || isHidden(child);
      if (hiddenHere) hidden.add(child);
      stack.push([child, hiddenHere]);
    }
  }
  return hidden;
}

/** A style declaration that hides its element (HIDING_STYLE), alone or among others. */
const HIDDEN_BY_STYLE = new RegExp(String.raw`(?:^|;)\s*(?:${HIDING_STYLE})\s*(?:!important)?\s*(?:;|$)`, "i");

/** Hidden from readers: the `hidden` attribute, `aria-hidden="true"`, an inline style that hides it (`display:none`, `opacity:0`…). */
export function isHidden(element: Element): boolean {
  const { hidden, ariaHidden, style } = element.properties;
  if (hidden !== undefined && hidden !== null && hidden !== false) return true;
  if (String(ariaHidden) === "true") return true;
  return typeof style === "string" && HIDDEN_BY_STYLE.test(style);
}

/** Removes chrome and hidden elements, empty links, and comments, from the content in place. */
function prune(content: Element): void {
  const walk = (node: Element): void => {
    node.children = node.children.filter((child) => {
      if (child.type === "comment") return false;
      if (child.type !== "element") return true;
      if (isHidden(child) || isChrome(child) || isEmptyLink(child)) return false;
      walk(child);
      return true;
    });
  };
  walk(content);
}

/**
 * A link with nothing to read or see: an index term's target (`<a class="indexterm" name="…"></a>`)
 * or an icon font's. It would print as `[]()`; headings took their anchors from such links already.
 */
function isEmptyLink(element: Element): boolean {
  return element.tagName === "a" && toText(element).trim() === "" && !select("img", element);
}

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
function anchorHeadings(content: Element): void {
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

/** Links and images point at absolute public URLs; in-page links at the page's public URL. */
function absolutize(content: Element, base: string, publicUrl: (url: string) => string): void {
  const walk = (node: Element): void => {
    for (const child of node.children) {
      if (child.type !== "element") continue;
      for (const attribute of ["href", "src"] as const) {
        const value = child.properties[attribute];
        if (typeof value !== "string") continue;
        const url = resolve(value, base);
        if (url) child.properties[attribute] = /^https?:/.test(url) ? publicUrl(url) : url;
      }
      walk(child);
    }
  };
  walk(content);
}

/** `highlight-python3` (Sphinx), `language-js` / `lang-js` (most others) on the block, its code or an ancestor; nearest first. */
function codeLanguage(elements: readonly Element[]): string | undefined {
  for (const element of [...elements].reverse()) {
    const classes = element.properties.className;
    if (!Array.isArray(classes)) continue;
    for (const name of classes) {
      const match = /^(?:highlight|language|lang)-([\w+#.-]+)$/.exec(String(name));
      if (!match?.[1]) continue;
      const language = match[1].toLowerCase();
      if (language === "default" || language === "none" || language === "text") return undefined;
      return language === "python3" ? "python" : language;
    }
  }
  return undefined;
}

/** Marks each `<pre>` with the language its block or an ancestor names (hast-util-to-mdast works on a copy, so a mark is how it travels). */
function markCodeLanguages(content: Element): void {
  const walk = (node: Element, ancestors: Element[]): void => {
    for (const child of node.children) {
      if (child.type !== "element") continue;
      const path = [...ancestors, child];
      if (child.tagName === "pre") {
        const language = codeLanguage([...path, ...childElements(child)]);
        if (language) child.properties.dataLanguage = language;
        continue;
      }
      walk(child, path);
    }
  };
  walk(content, [content]);
}

function toMarkdownText(content: Element): string {
  const headingWithAnchor: Handle = (state: State, node: Element) => {
    const depth = Number(node.tagName[1]) as Heading["depth"];
    return anchoredHeading(state, node, depth, node.properties.dataAnchor);
  };
  const handlers: Record<string, Handle> = Object.fromEntries(["h1", "h2", "h3", "h4", "h5", "h6"].map((tag) => [tag, headingWithAnchor]));
  handlers.pre = (_state: State, node: Element): Code => {
    const lang = typeof node.properties.dataLanguage === "string" ? node.properties.dataLanguage : null;
    const code: Code = { type: "code", lang, value: toText(node, { whitespace: "pre" }).replace(/\n$/, "") };
    return code;
  };
  // A break inside a table cell is written as HTML: a Markdown line break would end the row.
  handlers.br = (state: State, node: Element) => (node.properties.dataCellBreak ? { type: "html", value: "<br>" } : defaultHandlers.br(state, node));
  const mdast = toMdast(content, { handlers }) as MdastNodes;
  return toMarkdown(mdast, { extensions: [gfmTableToMarkdown({ tablePipeAlign: false }), gfmStrikethroughToMarkdown()], fences: true, bullet: "-", emphasis: "_", rule: "-" })
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/** What a table cell may hold that a Markdown table cell cannot: each becomes its inline content, one line. */
const CELL_BLOCKS = new Set(["p", "div", "pre", "ul", "ol", "li", "dl", "dt", "dd", "blockquote", "section", "figure", "h1", "h2", "h3", "h4", "h5", "h6"]);

/**
 * Keeps tables readable when their cells hold blocks (a function's
 * signature, description and example as three paragraphs; a list; code): a
 * Markdown cell is one line, so the blocks are joined with `<br>` instead of
 * running together ("FunctionDescription") or breaking the row (a code fence).
 */
function flattenTableCells(content: Element): void {
  for (const cell of selectAll("td, th", content)) cell.children = cellLine(cell.children);
}

function cellLine(nodes: readonly ElementContent[]): ElementContent[] {
  const line: ElementContent[] = [];
  // Whether the line holds more than spacing yet, and whether a block just ended it.
  let hasText = false;
  let breakDue = false;
  for (const node of nodes) {
    if (node.type === "element" && CELL_BLOCKS.has(node.tagName)) {
      const inner = node.tagName === "pre" ? [codeSpan(node)] : cellLine(node.children);
      if (inner.length === 0) continue;
      if (hasText) line.push(cellBreak());
      for (const piece of inner) line.push(piece);
      hasText ||= inner.some((piece) => piece.type !== "text" || piece.value.trim() !== "");
      breakDue = true;
      continue;
    }
    if (node.type === "text" && node.value.trim() === "") {
      if (!breakDue) line.push(node);
      continue;
    }
    if (breakDue) line.push(cellBreak());
    breakDue = false;
    hasText = true;
    line.push(node);
  }
  return line;
}

/** A code block in a cell, as a code span on one line. */
function codeSpan(pre: Element): Element {
  return { type: "element", tagName: "code", properties: {}, children: [{ type: "text", value: toText(pre, { whitespace: "pre" }).replace(/\s*\n\s*/g, " ").trim() }] };
}

function cellBreak(): Element {
  return { type: "element", tagName: "br", properties: { dataCellBreak: true }, children: [] };
}

function childElements(node: Element): Element[] {
  return node.children.filter((child): child is Element => child.type === "element");
}

/** A heading whose text ends with ` {#anchor}`, the form src/markdown/page.ts takes as the heading's id. */
function anchoredHeading(state: State, node: Element, depth: Heading["depth"], anchor: unknown): Heading {
  // A signature's markup (`<em class="property">class </em>bool(…)`) reads best as its plain text.
  const children = node.properties.dataSignature ? [{ type: "text" as const, value: squash(toText(node)) }] : (state.all(node) as Heading["children"]);
  const text: Heading["children"] = typeof anchor === "string" ? [...children, { type: "html", value: ` {#${anchor}}` }] : children;
  const heading: Heading = { type: "heading", depth, children: text };
  state.patch(node, heading);
  return heading;
}

