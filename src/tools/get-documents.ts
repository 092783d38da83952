import { z } from "zod";
import { MAX_NAMES_PER_GET, getDocuments } from "../documents/get.ts";
import { MAX_DOCUMENT_NAME_LENGTH } from "../documents/names.ts";
import type { StoredDocument } from "../documents/store.ts";
import { READ_ONLY_ANNOTATIONS, defineTool } from "./define.ts";

export const getDocumentsTool = defineTool({
  name: "get_documents",
  title: "Get documents",
  description: [
    "Fetch whole documentation pages as Markdown by resource name, in the order given.",
    `Take names from the \`parent\` of search_documents results or from the \`references\` of answer_query; at most ${MAX_NAMES_PER_GET} per call.`,
    "If any name is unknown the call fails and lists every missing name; search again to find the right ones.",
  ].join(" "),
  inputSchema: {
    names: z
      .array(
        z
          .string()
          .max(MAX_DOCUMENT_NAME_LENGTH, `each name must be at most ${MAX_DOCUMENT_NAME_LENGTH} characters`)
          .describe('A document name, "documents/{host}/{path}"'),
      )
      .min(1, "names must list at least one document name, e.g. a parent from search_documents")
      .max(MAX_NAMES_PER_GET, `names may list at most ${MAX_NAMES_PER_GET} documents per call; split the request`)
      .describe(`1–${MAX_NAMES_PER_GET} document names, e.g. "documents/dart.dev/language/async"`),
  },
  outputSchema: {
    documents: z
      .array(
        z.object({
          name: z.string().describe("Resource name of the page"),
          uri: z.string().describe("URL of the page"),
          title: z.string().describe("Page title"),
          description: z.string().describe("One-line summary of the page"),
          content: z.string().describe("The whole page as Markdown"),
        }),
      )
      .describe("The pages, in the order of names (repeats included)"),
  },
  annotations: { title: "Get documents", ...READ_ONLY_ANNOTATIONS },
  async run(env, args) {
    const documents = (await getDocuments(env.DB, args.names)).map(({ name, uri, title, description, content }) => ({
      name,
      uri,
      title,
      description,
      content,
    }));
    return { structured: { documents }, text: formatDocuments(documents) };
  },
});

function formatDocuments(documents: Pick<StoredDocument, "name" | "uri" | "title" | "content">[]): string {
  return documents
    .map((doc) => [`# ${doc.title}`, `- uri: ${doc.uri}`, `- name: ${doc.name}`, "", doc.content].join("\n"))
    .join("\n\n---\n\n");
}
