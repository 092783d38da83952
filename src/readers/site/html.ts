/**
 * One HTML page of a documentation site as Markdown the pipeline reads: the
 * article only (never navigation, sidebars, footers or hidden text), headings
 * with the page's own ids as `{#id}` anchors (src/markdown/page.ts), code
 * byte for byte with its language, tables as GFM tables, links absolute.
 * Pure functions on strings: they run in a Worker as in the CLI. Every walk
 * is linear in the page (parse-html.ts bounds the depth the recursive ones see).
 */
import type { Element, Root } from "hast";
import { select, selectAll } from "hast-util-select";
import { defaultHandlers, toMdast, type Handle, type State } from "hast-util-to-mdast";
import { toText } from "hast-util-to-text";
import type { Code, Heading, Nodes as MdastNodes } from "mdast";
import { gfmStrikethroughToMarkdown } from "mdast-util-gfm-strikethrough";
import { gfmTableToMarkdown } from "mdast-util-gfm-table";
import { toMarkdown } from "mdast-util-to-markdown";
import { HIDING_STYLE } from "../../markdown/hidden-html.ts";
import { anchorHeadings } from "./anchors.ts";
import { backOfBookIndex, type IndexEntry } from "./back-index.ts";
import { childElements, parseHtml } from "./parse-html.ts";
import { flattenTableCells } from "./tables.ts";

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
  /** Which rule found the article: the content selector, `main`, `[role=main]`, `article` (or the element holding several), else `body`. */
  contentRule: ContentRule;
  /** When the page is the site's back-of-book index (back-index.ts): its terms and the pages they point to. */
  indexEntries?: IndexEntry[];
}

/** The rules that find a page's article, in the order they are tried. */
export type ContentRule = "content selector" | "main" | "[role=main]" | "article" | "body" | "none";

/** How to read one page. */
interface HtmlPageOptions {
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
  const parts = pageParts(tree);
  const base = typeof parts.baseHref === "string" ? (resolve(parts.baseHref, options.url) ?? options.url) : options.url;
  const publicUrl = options.publicUrl ?? ((url: string) => url);
  const links = pageLinks(parts.anchors, base);
  const { content, rule: contentRule } = mainContent(tree, options.contentSelector);
  let indexEntries: IndexEntry[] | undefined;
  if (content) {
    // Anchors first: a heading's permalink (pruned as chrome) names its id.
    anchorHeadings(content);
    markCodeLanguages(content);
    prune(content);
    // Before the cells are flattened: an index's entries are the lists inside them.
    indexEntries = backOfBookIndex(content, base);
    flattenTableCells(content);
  }
  // The h1 of the pruned article has no permalink "¶" in its text.
  const h1 = (content && select("h1", content)) ?? select("h1", tree);
  const firstH1 = h1 ? squash(toText(h1)) : "";
  const documentTitle = parts.title ? squash(toText(parts.title)) : "";
  // Node's API pages put the site's name in the h1 and the page's in the first h2.
  const headings = [firstH1, ...(content ? selectAll("h1, h2", content).slice(0, 3).map((heading) => squash(toText(heading))) : [])];
  const title = metaText(parts.meta.get("property=og:title")) || siteTitle(documentTitle, headings) || firstH1;
  const description = metaText(parts.meta.get("name=description")) || metaText(parts.meta.get("property=og:description"));
  const canonical = typeof parts.canonicalHref === "string" ? resolve(parts.canonicalHref, base) : undefined;
  if (!content) return { title, description, markdown: "", canonical, links, contentRule };
  absolutize(content, base, publicUrl);
  return { title, description, markdown: toMarkdownText(content), canonical, links, contentRule, ...(indexEntries ? { indexEntries } : {}) };
}

/** What the page says of itself (title, meta, base and canonical links) and its links, gathered in one walk. */
interface PageParts {
  /** The first `<title>` in `<head>`. */
  title?: Element;
  /** The first `<base href>`'s href. */
  baseHref?: unknown;
  /** The first `<link rel="canonical" href>`'s href. */
  canonicalHref?: unknown;
  /** The first `<meta>` content for each `property=…` and `name=…` (property=og:title, name=description). */
  meta: Map<string, unknown>;
  /** Every `<a href>` in document order. */
  anchors: Element[];
}

/**
 * One walk of the whole page for the parts read wherever they are. A selector
 * per part walked the whole page each time, all of it when the part is absent:
 * 6.6 s of CPU in an 86 s crawl of Python's docs.
 */
function pageParts(tree: Root): PageParts {
  const parts: PageParts = { meta: new Map(), anchors: [] };
  const walk = (node: Root | Element): void => {
    for (const child of node.children) {
      if (child.type !== "element") continue;
      const { properties } = child;
      if (child.tagName === "a" && properties.href !== undefined) parts.anchors.push(child);
      else if (child.tagName === "title" && node.type === "element" && node.tagName === "head") parts.title ??= child;
      else if (child.tagName === "base" && properties.href !== undefined) parts.baseHref ??= properties.href;
      else if (child.tagName === "link" && Array.isArray(properties.rel) && properties.rel.includes("canonical") && properties.href !== undefined) parts.canonicalHref ??= properties.href;
      else if (child.tagName === "meta") {
        for (const key of [`property=${String(properties.property)}`, `name=${String(properties.name)}`]) {
          if (!parts.meta.has(key)) parts.meta.set(key, properties.content);
        }
      }
      walk(child);
    }
  };
  walk(tree);
  return parts;
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

function metaText(content: unknown): string {
  return typeof content === "string" ? squash(content) : "";
}

/**
 * "Sorting HOW TO — Python 3.11 documentation" is a heading plus the site's
 * name: the heading (the h1, else one of the article's first) is the page's title.
 */
function siteTitle(documentTitle: string, headings: readonly string[]): string {
  const heading = headings.find((text) => text && documentTitle.startsWith(text) && /^\s*[-–—|:·»]/.test(documentTitle.slice(text.length)));
  return heading ?? documentTitle;
}

/** Absolute http(s) links without fragment, deduplicated, in page order. */
function pageLinks(anchors: readonly Element[], base: string): string[] {
  const links = new Set<string>();
  for (const anchor of anchors) {
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
function mainContent(tree: Root, contentSelector: string | undefined): { content: Element | undefined; rule: ContentRule } {
  const hidden = hiddenElements(tree);
  const body = select("body", tree) ?? undefined;
  const bodyRule = body ? "body" : "none";
  for (const selector of contentSelector ? [contentSelector, ...MAIN_SELECTORS] : MAIN_SELECTORS) {
    const rule = selector === contentSelector ? "content selector" : (selector as ContentRule);
    const found = selectAll(selector, tree).filter((element) => !hidden.has(element));
    // An `<article>` that leaves out the page's h1 is an item of the page (Erlang's one function, after the module's
    // description): the content is the element holding the items and the h1. `main` is the page's by definition.
    const h1 = selector === "article" && found.length > 0 ? pageHeading(tree, hidden) : undefined;
    if (h1) found.push(h1);
    if (found.length === 1) return { content: found[0], rule };
    if (found.length > 1) {
      const holder = holderOf(tree, found);
      return holder ? { content: holder, rule } : { content: body, rule: bodyRule };
    }
  }
  return { content: body, rule: bodyRule };
}

/** The page's first visible h1 outside banners and chrome (a site name set as the h1 of a `<header>` is not the page's). */
function pageHeading(tree: Root, hidden: ReadonlySet<Element>): Element | undefined {
  const parents = parentsOf(tree);
  return selectAll("h1", tree).find((h1) => !hidden.has(h1) && !ancestry(parents, h1).some((at) => at.tagName === "header" || isChrome(at)));
}

function parentsOf(tree: Root): Map<Element, Element | undefined> {
  const parents = new Map<Element, Element | undefined>();
  const stack: (Root | Element)[] = [tree];
  for (let node = stack.pop(); node; node = stack.pop()) {
    for (const child of node.children) {
      if (child.type !== "element") continue;
      parents.set(child, node.type === "element" ? node : undefined);
      stack.push(child);
    }
  }
  return parents;
}

/** The element and its ancestors, nearest first. */
function ancestry(parents: ReadonlyMap<Element, Element | undefined>, element: Element): Element[] {
  const ancestors: Element[] = [];
  for (let at: Element | undefined = element; at; at = parents.get(at)) ancestors.push(at);
  return ancestors;
}

/** The nearest element that holds every one of `elements` (one of them, when it holds the others). */
function holderOf(tree: Root, elements: readonly Element[]): Element | undefined {
  const parents = parentsOf(tree);
  const chain = (element: Element): Element[] => ancestry(parents, element);
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
function isHidden(element: Element): boolean {
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
      if (isHidden(child) || isChrome(child) || isEmptyLink(child) || isMarkLink(child) || isUnnamedImage(child)) return false;
      walk(child);
      return true;
    });
  };
  walk(content);
}

/**
 * A link with nothing to read: an index term's target (`<a class="indexterm" name="…"></a>`), an
 * icon font's, or one around images without alt text (a logo). It would print as `[]()` or
 * `[![](logo.gif)](…)`; headings took their anchors from such links already. A link around an image
 * with alt text keeps it: the alt text is its words.
 */
function isEmptyLink(element: Element): boolean {
  return element.tagName === "a" && toText(element).trim() === "" && !selectAll("img", element).some((image) => !isUnnamedImage(image));
}

/**
 * An in-page link whose text is a mark, not words: the permalink beside a
 * heading ("#" in Node's API docs, "§" in rustdoc's, "¶" or "🔗" in other
 * themes that do not class it as Sphinx does) or a footnote's way back
 * ("↩"). It would end every heading path with "#"; headings took their
 * anchors from it already.
 */
function isMarkLink(element: Element): boolean {
  const { href } = element.properties;
  return element.tagName === "a" && typeof href === "string" && href.startsWith("#") && /^[^\p{L}\p{N}\s]{1,3}$/u.test(toText(element).trim());
}

/** An image without alt text gives a reader of the Markdown nothing but `![](…)`: it is dropped. */
function isUnnamedImage(element: Element): boolean {
  if (element.tagName !== "img") return false;
  const { alt } = element.properties;
  return !(typeof alt === "string" && alt.trim());
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

/** A heading whose text ends with ` {#anchor}`, the form src/markdown/page.ts takes as the heading's id. */
function anchoredHeading(state: State, node: Element, depth: Heading["depth"], anchor: unknown): Heading {
  // A signature's markup (`<em class="property">class </em>bool(…)`) reads best as its plain text.
  const children = node.properties.dataSignature ? [{ type: "text" as const, value: squash(toText(node)) }] : (state.all(node) as Heading["children"]);
  const text: Heading["children"] = typeof anchor === "string" ? [...children, { type: "html", value: ` {#${anchor}}` }] : children;
  const heading: Heading = { type: "heading", depth, children: text };
  state.patch(node, heading);
  return heading;
}

