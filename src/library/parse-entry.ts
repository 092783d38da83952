import { parse as parseYaml } from "yaml";
import { markdownLines } from "../markdown/page.ts";
import { splitFrontMatter } from "../markdown/front-matter.ts";
import { ENTRY_ID_PATTERN, MAX_ENTRY_ID_LENGTH, type LibraryEntry, type ParamDeclaration, type Verb } from "./entry.ts";
import { checkFrontMatter, type EntryProblem, type FrontMatter } from "./front-matter.ts";
import { PatternError, compilePattern } from "./pattern.ts";
import { ANY_PLACEHOLDER, PLACEHOLDER_PATTERN, checkParamValue } from "./render.ts";

/**
 * Reads StackQL query-library entry files. The rules are StackQL's own
 * (query-library/scripts/qlib.py and validate.py): the front-matter schema,
 * then the body — one `sql` fence under `## Query`, a single statement whose
 * first keyword matches the verb, placeholders and params in one-to-one
 * correspondence — and the id derived from the path. The CLI and the tests
 * both call this module; nothing else parses entries.
 */

/** The first segment of an entry id is a provider family, not always a provider name (StackQL's provider-families.json). */
const PROVIDER_FAMILIES: Readonly<Record<string, string>> = {
  awscc: "aws",
  azure_extras: "azure",
  azure_isv: "azure",
  azure_stack: "azure",
  databricks_account: "databricks",
  databricks_workspace: "databricks",
};

/** Statement keywords each verb may start with, so a "select" entry can never hide a DELETE from mutation filtering. */
const VERB_KEYWORDS: Record<Verb, readonly string[]> = {
  select: ["select", "with", "show", "describe"],
  mutation: ["insert", "update", "delete", "replace"],
  lifecycle: ["exec"],
};

const QUERY_HEADING = /^##\s+Query\s*$/m;
const NOTES_HEADING = /^##\s+Notes\s*$/m;
const NEXT_H2 = /^##\s+/m;
const SQL_FENCE = /^```sql[^\n]*\r?\n([\s\S]*?)\r?\n```\s*$/m;
const MDX_LINE = /^\s*(import|export)\s+/;

/** An MDX import/export line in the prose; inside a code sample such lines are just code. */
function hasMdxLine(body: string): boolean {
  return markdownLines(body).some((line) => !line.inFence && MDX_LINE.test(line.text));
}

/**
 * The `;` that end statements: those in string literals ('it''s;'), quoted
 * identifiers and comments are not separators, so `WHERE name = 'a;b'` is one statement.
 */
function statementSeparators(sql: string): number {
  let separators = 0;
  for (let i = 0; i < sql.length; i += 1) {
    const char = sql[i];
    const next = sql[i + 1];
    if (char === "'" || char === '"' || char === "`") {
      // '' inside a string is an escaped quote: skipping to the next quote and re-entering handles it.
      const end = sql.indexOf(char, i + 1);
      i = end === -1 ? sql.length : end;
    } else if (char === "-" && next === "-") {
      const end = sql.indexOf("\n", i);
      i = end === -1 ? sql.length : end;
    } else if (char === "/" && next === "*") {
      const end = sql.indexOf("*/", i + 2);
      i = end === -1 ? sql.length : end + 1;
    } else if (char === ";") {
      separators += 1;
    }
  }
  return separators;
}

/** The family a provider belongs to (`awscc` → `aws`). */
function providerFamily(provider: string): string {
  return PROVIDER_FAMILIES[provider] ?? provider;
}

/** An entry file that cannot be served, with every problem found in it. */
export interface RefusedFile {
  path: string;
  problems: EntryProblem[];
}

type ParsedEntryFile = { entry: LibraryEntry } | RefusedFile;

/** `aws/s3/buckets-list.md` → `aws/s3/buckets-list`. */
function entryIdForPath(path: string): string {
  return path.replace(/\\/g, "/").replace(/^\.\//, "").replace(/\.md$/, "");
}

/**
 * Parses and validates one entry file. `path` is relative to the library
 * folder (it gives the id); every problem is reported, not just the first.
 */
export function parseEntryFile(path: string, text: string): ParsedEntryFile {
  const id = entryIdForPath(path);
  const problems: EntryProblem[] = [];
  const segments = id.split("/");
  if (!ENTRY_ID_PATTERN.test(id) || segments.length !== 3) {
    problems.push({ field: "path", message: `the id "${id}" must be family/service/slug in lower-case letters, digits, "_" and "-"` });
  }
  if (id.length > MAX_ENTRY_ID_LENGTH) problems.push({ field: "path", message: `the id is longer than ${MAX_ENTRY_ID_LENGTH} characters` });

  const split = splitFrontMatter(text);
  if (!split) return { path, problems: [...problems, { field: "front matter", message: "missing the YAML front matter block (--- … ---) at the top" }] };
  let data: unknown;
  try {
    data = parseYaml(split.yaml);
  } catch (error) {
    return { path, problems: [...problems, { field: "front matter", message: `is not valid YAML: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}` }] };
  }
  const checked = checkFrontMatter(data);
  const body = split.body;
  const template = queryTemplate(body, problems);

  if ("problems" in checked) {
    problems.push(...checked.problems);
    // Placeholder problems are still worth reporting when the params themselves are readable.
    const params = Array.isArray((data as { params?: unknown } | null)?.params) ? (data as { params: unknown[] }).params : [];
    const names = params.map((param) => (param as { name?: unknown } | null)?.name).filter((name): name is string => typeof name === "string");
    if (template !== null) problems.push(...placeholderProblems(template, names));
    return { path, problems };
  }

  const frontMatter = checked.frontMatter;
  if (segments.length === 3) problems.push(...pathProblems(segments, frontMatter));
  if (hasMdxLine(body)) problems.push({ field: "body", message: "has MDX import/export lines; entries are CommonMark" });
  if (frontMatter.related?.includes(id)) problems.push({ field: "related", message: "lists the entry itself" });
  const params = frontMatter.params.map(normalizeParam);
  problems.push(...paramProblems(params));
  if (template !== null) {
    problems.push(...statementProblems(template, frontMatter.verb));
    problems.push(...placeholderProblems(template, params.map((param) => param.name)));
  }
  if (problems.length > 0 || template === null) return { path, problems };
  return { entry: toEntry(id, frontMatter, params, template, notesOf(body)) };
}

/** The first `sql` fence under `## Query`, byte for byte; null (with a problem) when there is none. */
function queryTemplate(body: string, problems: EntryProblem[]): string | null {
  const section = sectionAfter(QUERY_HEADING, body);
  if (section === null) {
    problems.push({ field: "## Query", message: "missing the ## Query section" });
    return null;
  }
  const fence = SQL_FENCE.exec(section);
  if (!fence) {
    problems.push({ field: "## Query", message: "has no ```sql fence" });
    return null;
  }
  return fence[1] ?? "";
}

function sectionAfter(heading: RegExp, body: string): string | null {
  const match = heading.exec(body);
  if (!match) return null;
  const rest = body.slice(match.index + match[0].length);
  const next = NEXT_H2.exec(rest);
  return next ? rest.slice(0, next.index) : rest;
}

/** `## Notes` as one line of prose: paragraphs with their whitespace collapsed, joined by spaces (StackQL's emitted `notes`). */
function notesOf(body: string): string {
  const section = sectionAfter(NOTES_HEADING, body)?.trim() ?? "";
  return section
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.replace(/\s+/g, " ").trim())
    .filter(Boolean)
    .join(" ");
}

function pathProblems([family, service]: string[], frontMatter: FrontMatter): EntryProblem[] {
  const problems: EntryProblem[] = [];
  const first = frontMatter.providers[0] ?? "";
  if (providerFamily(first) !== family) {
    problems.push({ field: "providers[0]", message: `"${first}" (family "${providerFamily(first)}") must belong to the family in the path, "${family}"` });
  }
  if (service && !frontMatter.services.includes(service)) {
    problems.push({ field: "services", message: `must include "${service}", the service in the path` });
  }
  return problems;
}

function normalizeParam(param: FrontMatter["params"][number]): ParamDeclaration {
  return {
    name: param.name,
    type: param.type,
    required: param.required ?? false,
    description: param.description,
    ...(param.default !== undefined && { default: param.default }),
    ...(param.example !== undefined && { example: param.example }),
    ...(param.enum !== undefined && { enum: param.enum }),
    ...(param.pattern !== undefined && { pattern: param.pattern }),
  };
}

function paramProblems(params: readonly ParamDeclaration[]): EntryProblem[] {
  const problems: EntryProblem[] = [];
  const seen = new Set<string>();
  params.forEach((param, index) => {
    const at = `params[${index}]`;
    if (seen.has(param.name)) problems.push({ field: `${at}.name`, message: `"${param.name}" is declared twice` });
    seen.add(param.name);
    if (param.type === "enum" && !param.enum) problems.push({ field: `${at}.enum`, message: "is required for an enum param" });
    if (param.type !== "enum" && param.enum) problems.push({ field: `${at}.enum`, message: `is only allowed when type is enum, not ${param.type}` });
    if (param.pattern !== undefined) {
      if (param.type !== "string") problems.push({ field: `${at}.pattern`, message: `is only allowed on string params, not ${param.type}` });
      try {
        compilePattern(param.pattern);
      } catch (error) {
        if (!(error instanceof PatternError)) throw error;
        problems.push({ field: `${at}.pattern`, message: `is refused: ${error.message}` });
      }
    }
    if (param.default === undefined && param.example === undefined) {
      problems.push({ field: `${at}.example`, message: "is required when the param has no default" });
    }
    if (param.type === "enum") {
      // Every declared choice must be renderable, not only the default and example.
      param.enum?.forEach((choice, choiceIndex) => {
        const checked = checkParamValue(param, choice);
        if ("error" in checked) problems.push({ field: `${at}.enum[${choiceIndex}]`, message: `is not a valid value: ${checked.error}` });
      });
    }
    for (const key of ["default", "example"] as const) {
      const value = param[key];
      if (value === undefined) continue;
      const checked = checkParamValue(param, value);
      if ("error" in checked) problems.push({ field: `${at}.${key}`, message: `is not a valid value: ${checked.error}` });
    }
  });
  return problems;
}

/** One statement, ending with `;`, starting with a keyword its verb allows. */
function statementProblems(template: string, verb: Verb): EntryProblem[] {
  const problems: EntryProblem[] = [];
  const statement = template.trim();
  if (!statement.endsWith(";")) problems.push({ field: "## Query", message: "the statement must end with ';'" });
  if (statementSeparators(statement) !== 1) problems.push({ field: "## Query", message: "the template must hold exactly one statement" });
  const withoutComments = statement.replace(/^(\s*(--[^\n]*(\n|$)|\/\*[\s\S]*?\*\/))*\s*/, "");
  const keyword = (withoutComments.split(/[\s(]/, 1)[0] ?? "").toLowerCase();
  if (!VERB_KEYWORDS[verb].includes(keyword)) {
    problems.push({ field: "verb", message: `is ${verb} but the statement starts with "${keyword}" (expected ${VERB_KEYWORDS[verb].join(", ")})` });
  }
  return problems;
}

/** Every `{{…}}` well formed, every placeholder declared, every declared param used. */
function placeholderProblems(template: string, declared: readonly string[]): EntryProblem[] {
  const problems: EntryProblem[] = [];
  const used = new Set<string>();
  const malformed = new Set<string>();
  for (const [placeholder] of template.matchAll(ANY_PLACEHOLDER)) {
    const name = PLACEHOLDER_PATTERN.exec(placeholder)?.[1];
    if (name === undefined) malformed.add(placeholder);
    else used.add(name);
  }
  for (const placeholder of malformed) {
    problems.push({ field: "## Query", message: `malformed placeholder ${placeholder}; write {{name}} with no spaces` });
  }
  for (const name of used) {
    if (!declared.includes(name)) problems.push({ field: "## Query", message: `placeholder {{${name}}} is not declared in params` });
  }
  declared.forEach((name, index) => {
    if (!used.has(name)) problems.push({ field: `params[${index}]`, message: `"${name}" is declared but not used in the template` });
  });
  return problems;
}

function toEntry(id: string, frontMatter: FrontMatter, params: ParamDeclaration[], template: string, notes: string): LibraryEntry {
  // A fixed key order, so the content hash and the bundled snapshot are stable.
  return {
    id,
    title: frontMatter.title,
    description: frontMatter.description,
    verb: frontMatter.verb,
    status: frontMatter.status,
    providers: frontMatter.providers,
    services: frontMatter.services,
    tags: frontMatter.tags,
    keywords: frontMatter.keywords ?? [],
    intent_keywords: frontMatter.intent_keywords,
    auth: frontMatter.auth ?? [],
    permissions: frontMatter.permissions ?? [],
    params,
    outputs: frontMatter.outputs ?? [],
    cost: frontMatter.cost,
    related: frontMatter.related ?? [],
    ...(frontMatter.last_verified !== undefined && { last_verified: frontMatter.last_verified }),
    ...(frontMatter.author !== undefined && { author: frontMatter.author }),
    ...(frontMatter.author_company !== undefined && { author_company: frontMatter.author_company }),
    template,
    notes,
  };
}

/** A folder of entry files, validated together: what can be served, what cannot, and why. */
export interface PreparedLibrary {
  entries: LibraryEntry[];
  refused: RefusedFile[];
}

/**
 * Validates a whole library. Files are independent, except that titles must
 * be unique (StackQL's rule): a later file repeating a title is refused.
 */
export function prepareLibrary(files: readonly { path: string; text: string }[]): PreparedLibrary {
  const entries: LibraryEntry[] = [];
  const refused: RefusedFile[] = [];
  const titles = new Map<string, string>();
  for (const file of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    const parsed = parseEntryFile(file.path, file.text);
    if ("problems" in parsed) {
      refused.push(parsed);
      continue;
    }
    const owner = titles.get(parsed.entry.title);
    if (owner) {
      refused.push({ path: file.path, problems: [{ field: "title", message: `repeats the title of ${owner}; titles are unique across the library` }] });
      continue;
    }
    titles.set(parsed.entry.title, parsed.entry.id);
    entries.push(parsed.entry);
  }
  return { entries, refused };
}

/** One line per problem: `path: field: message`. */
export function describeRefusals(refused: readonly RefusedFile[], prefix = ""): string[] {
  return refused.flatMap((file) => file.problems.map((problem) => `${prefix}${file.path}: ${problem.field}: ${problem.message}`));
}
