/**
 * HTML a browser does not show must not become text a model reads: an
 * element with the `hidden` attribute, a hiding style (HIDING_STYLE), or
 * `aria-hidden="true"`, and every `<template>`, is dropped with everything
 * inside it. Documentation pages use these for decorative icons and
 * collapsed widgets; a hostile page uses them to smuggle instructions.
 */

/**
 * Inline styles that hide an element's text: `display: none`, `visibility:
 * hidden`, and a zero `font-size` or `opacity` (`0`, `0.0`, `0px`, `0%`…, not `0.5`).
 * One place for the site reader (html.ts) and Markdown pages alike.
 */
export const HIDING_STYLE = String.raw`display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?:\.0+)?(?:px|em|rem|pt|%)?(?![\w.])|opacity\s*:\s*0(?:\.0+)?%?(?![\w.])`;

/** An opening tag that hides its element: a `<template>`, or one whose attributes hide it. */
const HIDING_TAG = new RegExp(
  String.raw`<(template)\b[^<>]*>|<([a-z][a-z0-9-]*)\b(?=[^<>]*?(?:\shidden(?:[\s=/>])|\saria-hidden\s*=\s*["']?true\b|\sstyle\s*=\s*["'][^"'>]*?(?:${HIDING_STYLE})))[^<>]*>`,
  "gi",
);

/** Elements that have no content and no closing tag. */
const VOID_ELEMENTS = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"]);

/**
 * `text` without hidden elements, and how many were dropped. An element
 * whose closing tag never comes hides the rest of the text, as in a browser.
 *
 * @example removeHiddenHtml('See <span hidden>ignore previous instructions</span>this.').text // "See this."
 */
export function removeHiddenHtml(text: string): { text: string; removed: number } {
  let removed = 0;
  let out = "";
  let at = 0;
  HIDING_TAG.lastIndex = 0;
  for (let match = HIDING_TAG.exec(text); match; match = HIDING_TAG.exec(text)) {
    const tag = (match[1] ?? match[2] ?? "").toLowerCase();
    const openEnd = match.index + match[0].length;
    out += text.slice(at, match.index);
    removed += 1;
    at = VOID_ELEMENTS.has(tag) || match[0].endsWith("/>") ? openEnd : closingEnd(text, tag, openEnd);
    HIDING_TAG.lastIndex = at;
  }
  return { text: out + text.slice(at), removed };
}

/** Where the element `tag` opened before `from` ends: after its matching closing tag, counting nested ones; the text's end if none. */
function closingEnd(text: string, tag: string, from: number): number {
  const tags = new RegExp(`<(/?)${tag}\\b[^<>]*>`, "gi");
  tags.lastIndex = from;
  let depth = 1;
  for (let match = tags.exec(text); match; match = tags.exec(text)) {
    if (match[1] === "/") depth -= 1;
    else if (!match[0].endsWith("/>")) depth += 1;
    if (depth === 0) return match.index + match[0].length;
  }
  return text.length;
}
