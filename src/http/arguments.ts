import type { z } from "zod";
import { AlmanacError } from "../errors.ts";
import { quoted } from "../text/quote.ts";

/**
 * `value` if `schema` accepts it, else INVALID_ARGUMENT naming every problem,
 * the one way MCP tools, REST parameters and the landing page's forms refuse
 * bad input. Pass a `z.strictObject` for arguments, so an unknown (misspelt)
 * field is refused rather than silently ignored.
 *
 * @example checkedArguments(z.strictObject({ query: queryField }), { query: "", filters: "x" }) // throws 'query must not be empty; …; unknown argument "filters"; …'
 */
export function checkedArguments<T>(schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value, { reportInput: true });
  if (!parsed.success) throw new AlmanacError("INVALID_ARGUMENT", describeIssues(parsed.error.issues));
  return parsed.data;
}

/**
 * One sentence per problem, naming the field unless the message already
 * starts with it. A field of the wrong type gets that one sentence: zod
 * still runs the field's other checks (a string has a length too), whose
 * messages would then be false.
 */
function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  const key = (issue: z.core.$ZodIssue) => issue.path.map(String).join(".");
  const mistyped = new Set(issues.filter((issue) => issue.code === "invalid_type").map(key));
  return issues
    .filter((issue) => issue.code === "invalid_type" || !mistyped.has(key(issue)))
    .map((issue) => {
      if (issue.code === "unrecognized_keys") return `unknown argument ${issue.keys.slice(0, 20).map((name) => `"${quoted(name)}"`).join(", ")}${issue.keys.length > 20 ? ` and ${issue.keys.length - 20} more` : ""}; see the tool's input schema`;
      // A path may hold keys the caller made up (a params key): quoted like any echo.
      const field = quoted(key(issue));
      const message = issue.code === "invalid_type" ? `expected ${withArticle(issue.expected)}, not ${withArticle(jsonType(issue.input))}` : issue.message;
      return field && !message.startsWith(field.split(".")[0] ?? "") ? `${field}: ${message}` : message;
    })
    .join("; ");
}

/** The JSON name of a value's type, as a client that sent it would say it. */
function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value === "bigint" ? "number" : typeof value;
}

/** "array" → "an array", "string" → "a string". */
function withArticle(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
