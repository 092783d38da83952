// The prose of retrieved chunks, cut into the sentences an extractive answer is made of.
import { markdownLines } from "../../markdown/page.ts";
import { stemsOf, type RankedCandidate } from "../search/rank.ts";

/** A "sentence" longer than this is a paragraph without full stops (a generated list, a wall of text): not answer material. */
const MAX_SENTENCE_CHARS = 1200;
/** A code block longer than this is left for get_documents: an answer shows the command, not a program. */
const MAX_CODE_CHARS = 700;
/** A "sentence" shorter than this is a label, not answer material; one that ends in ":" is a definition list's term. */
const MIN_SENTENCE_CHARS = 20;

/** A sentence, list item or table row of a candidate chunk, as the answerer weighs it. */
export interface Sentence {
  text: string;
  /** The code block this sentence introduces, fenced; it travels and is cited with the sentence. */
  code?: string;
  codeStems?: Set<string>;
  stems: Set<string>;
  /** Stems of the chunk's heading path (its first line), which set the sentence's topic. */
  headingStems: Set<string>;
  hit: RankedCandidate;
  paragraph: number;
  order: number;
  /** The rarity-weighted share of the question it covers (passage.ts scoreSentences). */
  coverage: number;
  /** How well it answers: its coverage, weighed by its chunk's rank and its form. */
  score: number;
}

/**
 * Readable prose of a chunk, one entry per sentence or list item. Code is
 * not prose, but a short code block completes the sentence right before it
 * ("Add it with:", or the paragraph it illustrates), so it rides along.
 */
export function sentencesOf(hit: RankedCandidate, cache: Map<string, string>): Sentence[] {
  // A chunk starts with its heading path, then a blank line (chunkDocument).
  const [headingPath = "", , ...bodyLines] = hit.content.split("\n");
  const headingStems = stemsOf(headingPath, cache);
  const body = bodyLines.join("\n");
  const blocks: { code: boolean; lines: string[]; fence?: string }[] = [];
  const item = /^\s*([-*+]|\d+[.)])\s+/;
  for (const line of markdownLines(body)) {
    // Link reference definitions ("[Future]: /libraries/…") are link targets, not text.
    const skipped = line.heading || /^\s*(<|:::|\{%|\[[^\]]+\]:\s)/.test(line.text) || TABLE_SEPARATOR.test(line.text);
    const last = blocks[blocks.length - 1];
    if (line.inFence) {
      if (last?.code && !/^ {0,3}(```|~~~)/.test(line.text)) last.lines.push(line.text);
      else if (last?.code) blocks.push({ code: false, lines: [] }); // the closing fence ends the block
      else blocks.push({ code: true, lines: [], fence: line.text.trim() });
      continue;
    }
    if (!last || last.code) blocks.push({ code: false, lines: [] });
    const prose = blocks[blocks.length - 1] as { lines: string[] };
    // List items and table rows stand alone; other lines continue their paragraph.
    if (skipped) prose.lines.push("");
    else if (TABLE_ROW.test(line.text)) prose.lines.push("", tableRowText(line.text), "");
    else prose.lines.push(item.test(line.text) ? `\n${line.text.replace(item, "")}` : line.text);
  }
  const sentences: Sentence[] = [];
  let paragraph = 0;
  for (const block of blocks) {
    const previous = sentences[sentences.length - 1];
    if (block.code) {
      const code = block.lines.join("\n").replace(/^\n+|\s+$/g, "");
      if (previous && !previous.code && code && code.length <= MAX_CODE_CHARS) {
        const opening = block.fence ?? "```";
        // Closed with the same marker it opened with (``` or ~~~, however many), so the fence holds.
        previous.code = `${opening}\n${code}\n${/^(`{3,}|~{3,})/.exec(opening)?.[1] ?? "```"}`;
        previous.codeStems = stemsOf(code, cache);
      }
      continue;
    }
    // A definition list's term ("Exit code 5:") stands above its description: it opens the description's first sentence.
    let term = "";
    for (const markdown of block.lines.join("\n").split(/\n\s*\n/)) {
      paragraph += 1;
      const plain = plainText(markdown);
      if (plain.length < MIN_SENTENCE_CHARS && plain.endsWith(":")) {
        term = plain;
        continue;
      }
      const texts = (term ? `${term} ${plain}` : plain)
        .split(/(?<=[.!?])\s+(?=[A-Z`"'(\[*_])/)
        .map((text) => text.trim())
        .filter((text) => text.length >= MIN_SENTENCE_CHARS && text.length <= MAX_SENTENCE_CHARS && /[\p{L}]/u.test(text));
      term = "";
      texts.forEach((text) => {
        sentences.push({
          text,
          stems: stemsOf(text, cache),
          headingStems,
          hit,
          paragraph,
          order: sentences.length,
          coverage: 0,
          score: 0,
        });
      });
    }
  }
  return sentences;
}

const TABLE_ROW = /^\s*\|.*\|\s*$/;
const TABLE_SEPARATOR = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;

/** A table row read as a line of text: its cells joined, so "| `PORT` | 8787 | the port |" can answer a question. */
function tableRowText(row: string): string {
  const cells = row.trim().replace(/^\||\|$/g, "").split("|").map((cell) => cell.trim()).filter(Boolean);
  const text = cells.join(" — ");
  return /[.!?:]$/.test(text) ? text : `${text}.`;
}

/** Markdown reduced to what reads well inline: links become their text. */
function plainText(markdown: string): string {
  return markdown
    .replace(/!\[[^\]]*\]\([^)]*\)/g, "")
    .replace(/\[([^\]]+)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]+)\]\[[^\]]*\]/g, "$1")
    .replace(/\s+/g, " ")
    .trim();
}


