import { z } from "zod";
import type { Answer } from "../documents/answer/answer-query.ts";
import { retrievalFor } from "../documents/search/retrieval.ts";
import { READ_ONLY_ANNOTATIONS, defineTool } from "./define.ts";
import { filterField, queryField } from "./document-fields.ts";

export const answerQueryTool = defineTool({
  name: "answer_query",
  title: "Answer a question from the documentation",
  description: [
    "Get a synthesized answer, grounded in the documentation, to a conceptual question (what something is, how parts fit together, when to use what).",
    "Every sentence is taken from the referenced pages; always cite the document names in `references` when you use the answer.",
    "For exact code samples, CLI flags, error messages or step-by-step instructions, use search_documents and then get_documents instead.",
    "This tool has a limited quota per caller: when it answers HTTP 429 (quota spent), use search_documents instead.",
  ].join(" "),
  inputSchema: {
    query: queryField.describe("The question, in natural language (1–500 characters)"),
    filter: filterField,
  },
  outputSchema: {
    answerText: z.string().describe("The answer, or a 'No grounded answer' notice when the documentation has none"),
    references: z.array(z.string()).describe("Names of the documents the answer comes from; pass them to get_documents"),
    citations: z
      .array(
        z.object({
          startIndex: z.number().int().describe("Start of the cited span in answerText (UTF-8 byte offset)"),
          endIndex: z.number().int().describe("End of the cited span in answerText (UTF-8 byte offset, exclusive)"),
          sources: z.array(z.object({ referenceIndex: z.number().int().describe("Index into references") })),
        }),
      )
      .describe("Which reference grounds each span of answerText"),
    referenceVersions: z
      .array(z.string())
      .optional()
      .describe("Per reference, the documentation version its page belongs to ('' for an unversioned page); absent when no reference is versioned. An answer draws on one version per data source"),
  },
  annotations: { title: "Answer a question from the documentation", ...READ_ONLY_ANNOTATIONS },
  async run(env, args, context) {
    const { answer } = await retrievalFor(env, context).answer(args);
    return { structured: answer, text: formatAnswer(answer) };
  },
});

/** The answer with [n] markers after each cited span, then the numbered references. */
function formatAnswer(answer: Answer): string {
  if (answer.references.length === 0) return answer.answerText;
  const bytes = new TextEncoder().encode(answer.answerText);
  const decoder = new TextDecoder();
  let text = "";
  let cursor = 0;
  for (const citation of answer.citations) {
    text += decoder.decode(bytes.slice(cursor, citation.endIndex));
    text += citation.sources.map((source) => ` [${source.referenceIndex + 1}]`).join("");
    cursor = citation.endIndex;
  }
  text += decoder.decode(bytes.slice(cursor));
  const references = answer.references
    .map((name, index) => {
      const version = answer.referenceVersions?.[index];
      return `${index + 1}. ${name}${version ? ` (version ${version})` : ""}`;
    })
    .join("\n");
  return `${text}\n\nReferences (pass these names to get_documents for the full pages):\n${references}`;
}
