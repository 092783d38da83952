import { z } from "zod";
import { FAN_OUTS, PARAM_TYPES, STATUSES, VERBS } from "./entry.ts";

/**
 * StackQL's front-matter schema (query-library/schema/front-matter.schema.json,
 * draft-07) written in zod, rule for rule: same keys, types, enums, patterns,
 * lengths, item counts and `additionalProperties: false` everywhere the schema
 * says so. test/library/front-matter.test.ts compares `z.toJSONSchema` of this
 * with a copy of the schema file, so the two cannot drift apart silently.
 */

const scalar = z.union([z.string(), z.number(), z.boolean()]);

export const paramDeclarationSchema = z.strictObject({
  name: z.string().regex(/^[a-z][a-z0-9_]*$/),
  type: z.enum(PARAM_TYPES),
  required: z.boolean().optional(),
  default: scalar.optional(),
  description: z.string().min(5),
  example: scalar.optional(),
  enum: z.array(z.string()).min(1).optional(),
  pattern: z.string().optional(),
});

export const outputColumnSchema = z.strictObject({
  name: z.string(),
  type: z.string().optional(),
  description: z.string().optional(),
});

export const costSchema = z.strictObject({
  fan_out: z.enum(FAN_OUTS),
  expensive: z.boolean(),
  notes: z.string().optional(),
});

export const frontMatterSchema = z.strictObject({
  title: z.string().min(5).max(80),
  description: z.string().min(20).max(300),
  verb: z.enum(VERBS),
  status: z.enum(STATUSES),
  providers: z.array(z.string().regex(/^[a-z0-9_]+$/)).min(1),
  services: z.array(z.string().regex(/^[a-z0-9_]+$/)).min(1),
  tags: z.array(z.string().regex(/^[a-z0-9_-]+$/)).min(2),
  keywords: z.array(z.string().min(2)).optional(),
  intent_keywords: z.array(z.string().min(5)).min(2),
  auth: z.array(z.string().regex(/^[A-Z][A-Z0-9_]*$/)).optional(),
  permissions: z.array(z.string().min(1)).optional(),
  params: z.array(paramDeclarationSchema),
  outputs: z.array(outputColumnSchema).optional(),
  cost: costSchema,
  related: z.array(z.string().regex(/^[a-z0-9_-]+\/[a-z0-9_-]+\/[a-z0-9_-]+$/)).optional(),
  last_verified: z.string().regex(/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/).optional(),
  author: z.string().min(2).max(80).optional(),
  author_company: z.string().min(2).max(80).optional(),
});

export type FrontMatter = z.infer<typeof frontMatterSchema>;

/** One thing wrong with an entry file: the field at fault and what is wrong with it. */
export interface EntryProblem {
  /** Dotted path into the front matter (`params[1].pattern`), or a body part (`## Query`). */
  field: string;
  message: string;
}

/** Validates parsed YAML against the schema, naming the field at fault for every problem. */
export function checkFrontMatter(data: unknown): { frontMatter: FrontMatter } | { problems: EntryProblem[] } {
  const parsed = frontMatterSchema.safeParse(data);
  if (parsed.success) return { frontMatter: parsed.data };
  return { problems: parsed.error.issues.flatMap(describeIssue) };
}

function fieldPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((text, key) => (typeof key === "number" ? `${text}[${key}]` : text ? `${text}.${String(key)}` : String(key)), "");
}

function describeIssue(issue: z.core.$ZodIssue): EntryProblem[] {
  const field = fieldPath(issue.path);
  switch (issue.code) {
    case "unrecognized_keys":
      // Each unknown key is its own field at fault (StackQL: additionalProperties false).
      return issue.keys.map((key) => ({
        field: field ? `${field}.${key}` : key,
        message: "unknown key; the front-matter schema allows no other keys",
      }));
    case "invalid_type":
      return [{ field: field || "front matter", message: issue.input === undefined ? "is required" : `must be ${describeExpected(issue.expected)}` }];
    case "too_small":
      return [{ field, message: issue.origin === "array" ? `needs at least ${issue.minimum} item(s)` : `must be at least ${issue.minimum} characters` }];
    case "too_big":
      return [{ field, message: issue.origin === "array" ? `allows at most ${issue.maximum} item(s)` : `must be at most ${issue.maximum} characters` }];
    case "invalid_value":
      return [{ field, message: `must be one of ${issue.values.map(String).join(", ")}` }];
    case "invalid_format":
      return [{ field, message: issue.format === "regex" && "pattern" in issue ? `must match ${String(issue.pattern)}` : issue.message }];
    case "invalid_union":
      return [{ field, message: "must be a string, number or boolean" }];
    default:
      return [{ field, message: issue.message }];
  }
}

function describeExpected(expected: string): string {
  if (expected === "object") return "a mapping";
  if (expected === "array") return "a list";
  return `a ${expected}`;
}
