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

/**
 * Which half of a site's questions a question is in: the tuning half is read
 * question by question while working; the held-out half only in aggregate,
 * once, at the end of a change.
 */
export const HALVES = ["tune", "holdout"] as const;
export type Half = (typeof HALVES)[number];

const questionSchema = z.object({
  id: z.string().min(1).describe("Unique within the set"),
  kind: z.enum(QUESTION_KINDS),
  half: z.enum(HALVES).optional().describe("The benchmark's split, made before anything was measured"),
  query: z.string().min(1).max(500),
  relevant: z.array(z.string().startsWith("documents/")).describe("Pages that answer it; any one counts. Empty for unanswerable questions"),
  fact: z.string().min(1).optional().describe("A distinctive string copied from a relevant page that a right answer contains"),
  source: z.string().url().optional().describe("Where a real person asked it (an issue or Q&A thread); the query quotes them"),
});
export type Question = z.infer<typeof questionSchema>;

const crawlOptions = {
  include: z.array(z.string()).optional().describe("URL path globs the crawl keeps (npm run ingest -- site --include)"),
  exclude: z.array(z.string()).optional().describe("URL path globs the crawl skips (--exclude)"),
  maxPages: z.number().int().positive().optional(),
};

/** Every kind of source Almanac ingests, as a question file names it. */
const corpusSchema = z.union([
  z.object({ dir: z.string().describe("Folder of Markdown pages, relative to the repository root"), baseUri: z.string().url() }).strict(),
  z.object({ site: z.string().url().describe("A documentation site, crawled with the real site reader"), baseUri: z.string().url().optional(), ...crawlOptions }).strict(),
  z
    .object({
      package: z.string().regex(/^[a-z0-9][a-z0-9+.-]+$/).describe("A Debian package holding an HTML documentation site"),
      serve: z.string().startsWith("/").describe("The site's folder as the package installs it, e.g. /usr/share/doc/sqlite3"),
      start: z.string().default("index.html").describe("The page the crawl starts from, relative to serve"),
      baseUri: z.string().url().describe("The public address the pages are named under"),
      ...crawlOptions,
    })
    .strict(),
  z.object({ archive: z.string().describe("A .tar.gz or .tar of Markdown pages: a URL or a file"), baseUri: z.string().url(), path: z.string().optional() }).strict(),
  z.object({ llms: z.string().url().describe("An llms.txt or llms-full.txt"), baseUri: z.string().url().optional() }).strict(),
]);
export type EvalCorpus = z.infer<typeof corpusSchema>;

const questionSetSchema = z.object({
  description: z.string().optional(),
  corpora: z.array(corpusSchema).default([]).describe("What to ingest when the command line names no --corpus or --state"),
  questions: z.array(questionSchema).min(1),
});
export type QuestionSet = z.infer<typeof questionSetSchema>;

/**
 * Whether a fact tells a right answer from a wrong one: a phrase of two or
 * more words, or a code token (code punctuation, a digit, a camelCase joint,
 * or an all-caps name of five letters or more such as GOPRIVATE). One plain
 * word ("GIN", "internal") turns up in answers that do not state the fact.
 */
export function isDistinctiveFact(fact: string): boolean {
  const trimmed = fact.trim();
  if (/\s/.test(trimmed)) return true;
  return /[_.()\-/:=<>[\]{}$@#*+%\d]/.test(trimmed) || /[a-z][A-Z]/.test(trimmed) || /^[A-Z]{5,}$/.test(trimmed);
}

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
    if (question.fact !== undefined && !isDistinctiveFact(question.fact)) {
      throw new Error(
        `question file: ${question.id}: the fact "${question.fact}" is one common word, which answers that miss the point also contain; give a code token or a phrase of two or more words copied from a right page`,
      );
    }
  }
  return parsed.data;
}
