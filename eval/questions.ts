// The question sets the evaluation runs: their file format, checked when read.
import { z } from "zod";

/** How a question is asked; the report groups figures by kind. */
export const QUESTION_KINDS = [
  "keyword",
  "paraphrase",
  "error",
  "comparison",
  "fact",
  "long",
  "unanswerable",
  // The real-user sets (issue 21): a person's own words, a question borrowing another ecosystem's terms,
  // a bare identifier or flag, and a question naming no site that both sites answer.
  "real-user",
  "vocabulary-mismatch",
  "identifier",
  "cross-site",
] as const;
export type QuestionKind = (typeof QUESTION_KINDS)[number];

const questionSchema = z.object({
  id: z.string().min(1).describe("Unique within the set"),
  kind: z.enum(QUESTION_KINDS),
  query: z.string().min(1).max(500),
  relevant: z.array(z.string().startsWith("documents/")).describe("Pages that answer it; any one counts. Empty for unanswerable questions"),
  fact: z.string().min(1).optional().describe("A short string copied from a relevant page that a right answer contains"),
  source: z.string().url().optional().describe("Where a real person asked it (an issue or Q&A thread); the query quotes them"),
});
export type Question = z.infer<typeof questionSchema>;

const corpusSchema = z.object({
  dir: z.string().describe("Folder of pages, relative to the repository root"),
  baseUri: z.string().url(),
});
export type EvalCorpus = z.infer<typeof corpusSchema>;

const questionSetSchema = z.object({
  description: z.string().optional(),
  corpora: z.array(corpusSchema).default([]).describe("What to ingest when the command line names no --corpus"),
  questions: z.array(questionSchema).min(1),
});
export type QuestionSet = z.infer<typeof questionSetSchema>;

/** Parses a question file (JSON text); throws an Error naming the first bad field and question. */
export function parseQuestionSet(text: string): QuestionSet {
  const parsed = questionSetSchema.safeParse(JSON.parse(text));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`question file: ${issue?.path.join(".") ?? "?"}: ${issue?.message ?? "invalid"}`);
  }
  const ids = new Set<string>();
  for (const question of parsed.data.questions) {
    if (ids.has(question.id)) throw new Error(`question file: id "${question.id}" is used twice`);
    ids.add(question.id);
    if ((question.kind === "unanswerable") !== (question.relevant.length === 0)) {
      throw new Error(`question file: ${question.id}: only unanswerable questions have no relevant pages`);
    }
  }
  return parsed.data;
}
