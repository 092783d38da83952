import { z } from "zod";
import { resultBudget } from "../config.ts";
import { MAX_NAMES_PER_GET } from "../documents/read/get-documents.ts";
import { MAX_DOCUMENT_NAME_LENGTH } from "../documents/names.ts";
import { readDocuments, type DocumentPart, type ReadBudget } from "../documents/read/read-parts.ts";
import { READ_ONLY_ANNOTATIONS, defineTool, reads } from "./define.ts";

/** Share of the budget one part of a long page takes. */
const PART_SHARE = 0.8;
/** The outlines of long pages may take at most this share of the budget. */
const OUTLINE_SHARE = 0.12;
/** Each entry's title, uri and continuation lines, beside the name they repeat (counted apart). */
const ENTRY_OVERHEAD_CHARS = 250;
/**
 * A part is 80 % of the budget, whatever the call (less when the budget is
 * small), so that one name of up to MAX_DOCUMENT_NAME_LENGTH characters
 * always has room for a whole part beside its outline and lines. The content
 * of a call shares what is left once the outline and every entry's own lines
 * have their room; an entry that does not fit names itself, and asked for
 * alone it always does.
 */
function readBudget(budget: number, names: readonly string[]): ReadBudget {
  const contentRoom = Math.floor(budget * (1 - OUTLINE_SHARE));
  const entryRoom = (name: string) => ENTRY_OVERHEAD_CHARS + 3 * name.length;
  // The part size leaves room for the longest name a call may echo, so one name always gets a whole part.
  const partChars = Math.min(Math.floor(budget * PART_SHARE), contentRoom - ENTRY_OVERHEAD_CHARS - 3 * MAX_DOCUMENT_NAME_LENGTH);
  const totalChars = contentRoom - names.reduce((sum, name) => sum + entryRoom(name), 0);
  return { partChars, totalChars: Math.max(0, totalChars) };
}

export const getDocumentsTool = defineTool({
  name: "get_documents",
  title: "Get documents",
  description: [
    "Fetch documentation pages as Markdown by resource name, in the order given.",
    `Take names from the \`parent\` of search_documents results or from the \`references\` of answer_query; at most ${MAX_NAMES_PER_GET} per call.`,
    'Add a section to read only that part of a page: "documents/go.dev/ref/mod#go-mod-files" (the anchor after # in a search result\'s uri).',
    "A page too long for one result comes in parts: an entry with `truncated: true` names the part that follows in `next`; pass it to get_documents to read on (the parts, concatenated, are the page).",
    "If any name is unknown the call fails and lists every missing name; search again to find the right ones.",
  ].join(" "),
  inputSchema: {
    names: z
      .array(
        z
          .string()
          .max(MAX_DOCUMENT_NAME_LENGTH, `each name must be at most ${MAX_DOCUMENT_NAME_LENGTH} characters`)
          .describe('A document name, "documents/{host}/{path}", optionally with "#section" (or the "next" of a truncated entry)'),
      )
      .min(1, "names must list at least one document name, e.g. a parent from search_documents")
      .max(MAX_NAMES_PER_GET, `names may list at most ${MAX_NAMES_PER_GET} documents per call; split the request`)
      .describe(`1–${MAX_NAMES_PER_GET} document names, e.g. "documents/dart.dev/language/async"`),
  },
  outputSchema: {
    documents: z
      .array(
        z.object({
          name: z.string().describe("Resource name of the page, with the #section when one was asked for"),
          uri: z.string().describe("URL of the page"),
          title: z.string().describe("Page title"),
          description: z.string().describe("One-line summary of the page"),
          content: z.string().describe("The page (or section, or part) as Markdown"),
          section: z
            .object({
              anchor: z.string().describe("The section's anchor on the page"),
              headingPath: z.array(z.string()).describe("Headings from the top of the page down to the section"),
            })
            .optional()
            .describe("Present when a section was asked for"),
          truncated: z.boolean().optional().describe("True when more of this page or section follows; absent on the last part"),
          next: z.string().optional().describe("The name to pass to get_documents for the part that follows; absent on the last part"),
        }),
      )
      .describe("The pages, in the order of names (repeats included)"),
  },
  annotations: { title: "Get documents", ...READ_ONLY_ANNOTATIONS },
  async run(env, args, context) {
    const budget = resultBudget(env);
    const parts = await reads(context).read(env.DB, (db) => readDocuments(db, args.names, readBudget(budget, args.names), context?.viewer));
    const documents = parts.map(({ name, uri, title, description, content, section, truncated, next }) => ({
      name,
      uri,
      title,
      description,
      content,
      ...(section ? { section } : {}),
      ...(truncated ? { truncated, next } : {}),
    }));
    return { structured: { documents }, text: formatDocuments(parts, Math.floor(budget * OUTLINE_SHARE)) };
  },
});

function formatDocuments(parts: readonly DocumentPart[], outlineBudget: number): string {
  // The outlines of all entries share one allowance, so twenty long pages cannot bring twenty outlines.
  let outlineRoom = outlineBudget;
  return parts
    .map((doc) => {
      const header = [`# ${doc.title}`, `- uri: ${doc.uri}${doc.section ? `#${doc.section.anchor}` : ""}`, `- name: ${doc.name}`];
      if (doc.section) header.push(`- section: ${doc.section.headingPath.join(" > ")}`);
      if (!doc.truncated) return [...header, "", doc.content].join("\n");
      if (doc.content === "") return [...header, "", `[Not included: this result is already full. Ask for it with get_documents {"names": ["${doc.next}"]}.]`].join("\n");
      const outline = outlineText(doc, outlineRoom);
      outlineRoom -= outline.length;
      return [
        ...header,
        "",
        doc.content,
        "",
        `[Part ${doc.part} of ${doc.parts}. Continue with get_documents {"names": ["${doc.next}"]}, or pick a section from the outline.]`,
        ...(outline ? ["", outline] : []),
      ].join("\n");
    })
    .join("\n\n---\n\n");
}

/** The page's headings with the names that fetch them, indented by level, cut to `budget` characters. */
function outlineText(doc: DocumentPart, budget: number): string {
  if (budget < 200) return "";
  const base = doc.name.replace(/#.*$/, "");
  const lines = ["Outline:"];
  let used = lines[0]?.length ?? 0;
  for (const [index, heading] of doc.outline.entries()) {
    const line = `${"  ".repeat(Math.max(0, heading.level - 2))}- ${heading.text}: ${base}#${heading.anchor}`;
    if (used + line.length + 1 > budget) {
      lines.push(`… ${doc.outline.length - index} more headings`);
      break;
    }
    lines.push(line);
    used += line.length + 1;
  }
  return lines.join("\n");
}
