import { z } from "zod";
import { cutAtLine } from "../markdown/page.ts";
import { AlmanacError } from "../errors.ts";
import { costSchema, outputColumnSchema, paramDeclarationSchema } from "../library/front-matter.ts";
import { SOURCE_TIERS } from "../library/source.ts";

/** The shapes a query-library tool's text content can take (SPEC 3.3); the first is the default. */
const TEXT_FORMATS = ["markdown", "json"] as const;
type TextFormat = (typeof TEXT_FORMATS)[number];

/**
 * A plain string, checked by `resolveFormat`, because SPEC 3.3 fixes the error
 * text for a wrong value (`invalid format "<x>" (legal: markdown, json)`),
 * which an enum schema would word differently.
 */
export const formatField = z
  .string()
  .optional()
  .describe('Shape of the text content: "markdown" (default, a readable summary) or "json" (the structured result as JSON)');

/** The requested format, or INVALID_ARGUMENT naming the legal ones. */
function resolveFormat(format: string | undefined): TextFormat {
  if (format === undefined) return TEXT_FORMATS[0];
  const known = TEXT_FORMATS.find((candidate) => candidate === format);
  if (known) return known;
  throw new AlmanacError("INVALID_ARGUMENT", `invalid format "${format}" (legal: ${TEXT_FORMATS.join(", ")})`);
}

/**
 * Checks `format` (before any lookup, so a bad value is reported first) and
 * returns how to write the text content: the structured result as JSON for
 * `json`, its Markdown rendering otherwise.
 */
export function textWriter(format: string | undefined, budget: number): <T>(structured: T, markdown: (structured: T) => string) => string {
  const textFormat = resolveFormat(format);
  return (structured, markdown) => {
    const text = textFormat === "json" ? JSON.stringify(structured, null, 2) : markdown(structured);
    // Entries are small; a huge template still must not pass the result budget (cut between lines, never inside one).
    if (text.length <= budget) return text;
    return `${cutAtLine(text, budget - 120)}\n\n[… cut at ${budget} characters; structuredContent holds the whole entry]`;
  };
}

export const sourceFields = {
  source_tier: z
    .enum(SOURCE_TIERS)
    .describe("primary: served from the live library; snapshot: the live store failed and the copy bundled in the server answered"),
  source_url: z.string().describe("Where the library's catalogue is published"),
  stale: z.boolean().describe("true when served from the bundled snapshot, which may lag behind the live library"),
};

const param = paramDeclarationSchema.shape;
const cost = costSchema.shape;
const column = outputColumnSchema.shape;

/** A declared param as the tools return it: the front-matter shape, with `required` always present. */
export const paramDeclarationOutput = paramDeclarationSchema.extend({
  name: param.name.describe("Placeholder name: the template contains {{name}}"),
  type: param.type.describe("How the value is checked and inserted"),
  // Ingestion fills in `false` when the front matter omits it, as StackQL's emitted JSON does.
  required: z.boolean().describe("Whether the value must be supplied (a default makes it effectively optional)"),
  description: param.description.describe("What the param means"),
  default: param.default.describe("Value used when the param is omitted"),
  example: param.example.describe("A realistic example value"),
  enum: param.enum.describe("Allowed values of an enum param"),
  pattern: param.pattern.describe("RE2 pattern a string value must match in full"),
});

export const costOutput = costSchema.extend({
  fan_out: cost.fan_out.describe("Dimension the query iterates over; warn before running it at scale"),
  expensive: cost.expensive.describe("Whether the query is expensive to run"),
  notes: cost.notes.describe("Cost notes"),
});

export const outputColumnOutput = outputColumnSchema.extend({
  name: column.name.describe("Column name"),
  type: column.type.describe("Column type"),
  description: column.description.describe("What the column holds"),
});

/** Escapes a value for one Markdown table cell. */
export function tableCell(value: string): string {
  return value.replace(/\|/g, "\\|").replace(/\s*\n\s*/g, " ");
}
