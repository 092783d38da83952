// Tables whose cells hold blocks, kept readable as Markdown tables.
import type { Element, ElementContent } from "hast";
import { selectAll } from "hast-util-select";
import { toText } from "hast-util-to-text";

/** What a table cell may hold that a Markdown table cell cannot: each becomes its inline content, one line. */
const CELL_BLOCKS = new Set(["p", "div", "pre", "ul", "ol", "li", "dl", "dt", "dd", "blockquote", "section", "figure", "h1", "h2", "h3", "h4", "h5", "h6"]);

/**
 * Keeps tables readable when their cells hold blocks (a function's
 * signature, description and example as three paragraphs; a list; code): a
 * Markdown cell is one line, so the blocks are joined with `<br>` instead of
 * running together ("FunctionDescription") or breaking the row (a code fence).
 */
export function flattenTableCells(content: Element): void {
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
