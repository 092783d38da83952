// What a person asked one of the "Try it" panels for, read from the form
// (query string or POST body) and checked with the tools' own schemas, so a
// value the MCP tool would refuse is refused here with the same words.
import type { Context, MiddlewareHandler } from "hono";
import { z } from "zod";
import { AlmanacError } from "../errors.ts";
import { quoted } from "../text/quote.ts";
import { checkedArguments } from "../http/arguments.ts";
import type { ToolDefinition } from "../tools/define.ts";

/** The search panel's form: GET /try/search. */
export interface SearchInput {
  /** Absent when the page was opened without a search. */
  query?: string;
  /** "" for every data source. */
  dataSource: string;
  pageToken?: string;
  /** The rank of the page's first result, for numbering (links carry it; it changes nothing else). */
  start: number;
}

/** The ask panel's form: POST /try/ask. */
export interface AskInput {
  query?: string;
  dataSource: string;
  /** The form's key field; undefined when left empty. Never written back into the page. */
  key?: string;
}

/** The query-library panel's form: GET /try/library. */
export interface LibraryInput {
  intent?: string;
  provider: string;
  includeMutations: boolean;
  /** The entry opened, if any. */
  id?: string;
  /** The parameter fields submitted (`p.<name>`), in form order; none means the entry is only opened. */
  params: [name: string, value: string][];
}

/** Which panel a request is for and what it asked; set before anything can fail, so errors show in that panel. */
export type TryRequest =
  | { panel: "search"; input: SearchInput }
  | { panel: "ask"; input: AskInput }
  | { panel: "library"; input: LibraryInput }
  | { panel: "allowance"; input: { key?: string } };

declare module "hono" {
  interface ContextVariableMap {
    /** Set by `readTryRequest` on every /try route. */
    tryRequest: TryRequest;
  }
}

/** The name of a parameter field for the entry param `name`: `p.region`. */
export const PARAM_FIELD_PREFIX = "p.";

/** Rank numbers beyond this are not a page of results (search pages stop at its 200th candidate). */
const MAX_START = 1000;

/**
 * Reads a panel's form into `c.get("tryRequest")`. Reading never fails on
 * content: checks come after, so their errors can show beside what was typed.
 *
 * @example site.get("/try/search", readTryRequest("search"), …);
 */
export function readTryRequest(panel: TryRequest["panel"]): MiddlewareHandler<{ Bindings: Env }> {
  return async (c, next) => {
    const form = await formFields(c);
    c.set("tryRequest", tryRequestOf(panel, form));
    await next();
  };
}

/** The submitted fields: the query string for GET, the body for POST (urlencoded or multipart; files are ignored). */
async function formFields(c: Context<{ Bindings: Env }>): Promise<URLSearchParams> {
  if (c.req.method !== "POST") return new URL(c.req.url).searchParams;
  const fields = new URLSearchParams();
  let body: Awaited<ReturnType<typeof c.req.parseBody>>;
  try {
    body = await c.req.parseBody({ all: true });
  } catch (error) {
    // The platform's form parser throws on a multipart body without a boundary, or cut short: the sender's mistake, not ours.
    const why = (error instanceof Error ? error.message.split(". ")[0] : undefined) || "unreadable";
    throw new AlmanacError("INVALID_ARGUMENT", `the form could not be read (${quoted(why)}); send it as application/x-www-form-urlencoded or multipart/form-data, as the page's own form does`);
  }
  for (const [name, value] of Object.entries(body)) {
    for (const item of Array.isArray(value) ? value : [value]) if (typeof item === "string") fields.append(name, item);
  }
  return fields;
}

function tryRequestOf(panel: TryRequest["panel"], form: URLSearchParams): TryRequest {
  const one = (name: string) => form.get(name) ?? undefined;
  const key = one("key")?.trim() || undefined;
  switch (panel) {
    case "search": {
      const start = Number.parseInt(one("start") ?? "1", 10);
      return {
        panel,
        input: {
          query: one("query"),
          dataSource: one("dataSource") ?? "",
          pageToken: one("pageToken") || undefined,
          start: Number.isInteger(start) && start >= 1 && start <= MAX_START ? start : 1,
        },
      };
    }
    case "ask":
      return { panel, input: { query: one("query"), dataSource: one("dataSource") ?? "", key } };
    case "library":
      return {
        panel,
        input: {
          intent: one("intent"),
          provider: one("provider") ?? "",
          includeMutations: one("include_mutations") === "true",
          id: one("id") || undefined,
          params: [...form].filter(([name]) => name.startsWith(PARAM_FIELD_PREFIX)).map(([name, value]) => [name.slice(PARAM_FIELD_PREFIX.length), value]),
        },
      };
    case "allowance":
      return { panel, input: { key } };
  }
}

/**
 * A tool's arguments checked with its own input schema, exactly as MCP
 * checks a call's: INVALID_ARGUMENT naming every problem, unknown fields refused.
 *
 * @example toolArguments(searchDocumentsTool, { query: "" }) // throws 'query must not be empty; ask a question or give keywords'
 */
export function toolArguments<Input extends z.ZodRawShape>(
  tool: Pick<ToolDefinition<Input, z.ZodRawShape>, "inputSchema">,
  args: Record<string, unknown>,
): z.infer<z.ZodObject<Input>> {
  return checkedArguments(z.strictObject(tool.inputSchema), args);
}

/**
 * The filter for one data source (`data_source = "dart.dev"`), or undefined
 * for all: the panels offer sources, not AIP-160, but search the same way.
 */
export function dataSourceFilter(dataSource: string): string | undefined {
  if (dataSource === "") return undefined;
  return `data_source = "${dataSource.replace(/["\\]/g, "\\$&")}"`;
}

/**
 * An entry's params as query_library_get takes them: an empty field is
 * null, which rendering treats as not given (its default applies, or it is
 * reported missing), so leaving a field blank means what it looks like.
 */
export function entryParams(params: LibraryInput["params"]): Record<string, string | null> {
  return Object.fromEntries(params.map(([name, value]) => [name, value.trim() === "" ? null : value]));
}
