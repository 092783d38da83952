/**
 * HTML to a hast tree every later walk can afford: no deeper than
 * MAX_ELEMENT_DEPTH, with emphasis nested at most MAX_EMPHASIS_NESTING deep.
 * parse5 builds its tree without recursion; converting it to hast, selecting
 * in it and writing Markdown all recurse, so a page nested 3,000 levels
 * overflowed the stack, and Markdown's emphasis rules made 200 nested `<em>`
 * take a minute. Both caps are applied by loops, before any recursion.
 */
import type { Element, ElementContent, Root } from "hast";
import { fromParse5 } from "hast-util-from-parse5";
import { parse, type DefaultTreeAdapterTypes } from "parse5";

/**
 * Elements below this depth are dropped (text held directly at the last
 * level is kept). Documentation pages nest about 20 deep (Python's Sphinx
 * pages 17); the hast and Markdown walks recurse a few frames a level and
 * overflow at about 1,500.
 */
export const MAX_ELEMENT_DEPTH = 256;

/**
 * Emphasis (`em`, `strong`, `del` and their synonyms) inside more than this
 * many others is unwrapped to its content: Markdown cannot say more than
 * bold italic struck through, and its writer's cost grows steeply with the
 * nesting (100 `<em><strong>` took 27 s).
 */
const MAX_EMPHASIS_NESTING = 3;

/** The tags hast-util-to-mdast turns into emphasis, strong or delete. */
const EMPHASIS_TAGS = new Set(["em", "i", "strong", "b", "del", "s", "strike"]);

/** The page as a hast tree within the caps above. */
export function parseHtml(html: string): Root {
  const document = parse(html, { scriptingEnabled: false });
  dropDeepElements(document);
  const tree = fromParse5(document) as Root;
  unwrapDeepEmphasis(tree);
  return tree;
}

type P5Parent = DefaultTreeAdapterTypes.ParentNode;

/** Removes the element children of every element at MAX_ELEMENT_DEPTH, template contents included. */
function dropDeepElements(document: DefaultTreeAdapterTypes.Document): void {
  const stack: [P5Parent, number][] = [[document, 0]];
  for (let entry = stack.pop(); entry; entry = stack.pop()) {
    const [node, depth] = entry;
    if (depth >= MAX_ELEMENT_DEPTH) {
      node.childNodes = node.childNodes.filter((child) => child.nodeName === "#text");
      if ("content" in node) node.content.childNodes = [];
      continue;
    }
    for (const child of node.childNodes) if ("childNodes" in child) stack.push([child, depth + 1]);
    if ("content" in node) stack.push([node.content, depth + 1]);
  }
}

/** Replaces each emphasis element inside MAX_EMPHASIS_NESTING others by its children. */
function unwrapDeepEmphasis(tree: Root): void {
  const stack: [Root | Element, number][] = [[tree, 0]];
  for (let entry = stack.pop(); entry; entry = stack.pop()) {
    const [node, nesting] = entry;
    if (nesting >= MAX_EMPHASIS_NESTING && node.type === "element") node.children = withoutEmphasis(node.children);
    for (const child of node.children) if (child.type === "element") stack.push([child, nesting + (EMPHASIS_TAGS.has(child.tagName) ? 1 : 0)]);
  }
}

/** The nodes, each emphasis element among them (and within those) replaced by its children, in order. */
function withoutEmphasis(nodes: ElementContent[]): ElementContent[] {
  const kept: ElementContent[] = [];
  const pending = [...nodes].reverse();
  for (let node = pending.pop(); node; node = pending.pop()) {
    if (node.type === "element" && EMPHASIS_TAGS.has(node.tagName)) {
      for (let index = node.children.length - 1; index >= 0; index -= 1) pending.push(node.children[index] as ElementContent);
    } else {
      kept.push(node);
    }
  }
  return kept;
}

/** The element children of `node`. */
export function childElements(node: Element): Element[] {
  return node.children.filter((child): child is Element => child.type === "element");
}
