import { z } from "zod";
import { AlmanacError } from "../errors.ts";

/** The shapes a query-library tool's text content can take (SPEC 3.3). */
export type TextFormat = "markdown" | "json";

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
export function resolveFormat(format: string | undefined): TextFormat {
  if (format === undefined || format === "markdown") return "markdown";
  if (format === "json") return "json";
  throw new AlmanacError("INVALID_ARGUMENT", `invalid format "${format}" (legal: markdown, json)`);
}

/** `format: json` text: the structured result itself. */
export function jsonText(structured: unknown): string {
  return JSON.stringify(structured, null, 2);
}

export const sourceFields = {
  source_tier: z
    .enum(["primary", "snapshot"])
    .describe("primary: served from the live library; snapshot: the live store failed and the copy bundled in the server answered"),
  source_url: z.string().describe("Where the library's catalogue is published"),
  stale: z.boolean().describe("true when served from the bundled snapshot, which may lag behind the live library"),
};

const scalar = z.union([z.string(), z.number(), z.boolean()]);

export const paramDeclarationOutput = z.object({
  name: z.string().describe("Placeholder name: the template contains {{name}}"),
  type: z.enum(["string", "number", "boolean", "identifier", "enum"]).describe("How the value is checked and inserted"),
  required: z.boolean().describe("Whether the value must be supplied (a default makes it effectively optional)"),
  description: z.string().describe("What the param means"),
  default: scalar.optional().describe("Value used when the param is omitted"),
  example: scalar.optional().describe("A realistic example value"),
  enum: z.array(z.string()).optional().describe("Allowed values of an enum param"),
  pattern: z.string().optional().describe("RE2 pattern a string value must match in full"),
});

export const costOutput = z.object({
  fan_out: z.enum(["none", "region", "project", "account", "subscription"]).describe("Dimension the query iterates over; warn before running it at scale"),
  expensive: z.boolean().describe("Whether the query is expensive to run"),
  notes: z.string().optional().describe("Cost notes"),
});

export const outputColumnOutput = z.object({
  name: z.string().describe("Column name"),
  type: z.string().optional().describe("Column type"),
  description: z.string().optional().describe("What the column holds"),
});

/** Escapes a value for one Markdown table cell. */
export function tableCell(value: string): string {
  return value.replace(/\|/g, "\\|").replace(/\s*\n\s*/g, " ");
}
