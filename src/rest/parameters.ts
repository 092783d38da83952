// Reading a REST request the way Google's front end does: each method's own
// parameters (camelCase or snake_case), Google's system parameters, and a
// clear INVALID_ARGUMENT for anything else.
import type { z } from "zod";
import { AlmanacError } from "../errors.ts";
import { checkedArguments } from "../http/arguments.ts";
import { parseFieldMask, type FieldMask } from "./field-mask.ts";

/** What a REST method reads from the query string. */
export interface RestMethod {
  /** The method's id in Google's discovery document, for error messages. */
  id: string;
  /** Its own parameters, camelCase as in the discovery document. */
  parameters: readonly string[];
  /** Those that may be given more than once. */
  repeated?: readonly string[];
}

/** Google's system parameters that change how Almanac answers. */
export interface SystemParameters {
  /** prettyPrint: Google indents JSON unless told `prettyPrint=false`. */
  prettyPrint: boolean;
  /** fields: the partial response asked for, or null for the whole response. */
  fields: FieldMask | null;
}

/** The method's own parameters, by camelCase name, each with its values in order. */
type MethodParameters = Map<string, string[]>;

/**
 * Google's system parameters (the discovery document's top-level
 * `parameters`) that need no answer here: `key` is read by
 * authenticateCaller, `quotaUser` splits quota per end user on Google's side
 * (Almanac counts per key or address), and the upload ones only concern uploads.
 */
const ACCEPTED_SYSTEM_PARAMETERS = new Set(["key", "quotaUser", "uploadType", "upload_protocol"]);

/** `pageSize` → `page_size`: Google accepts a field's proto name as well as its JSON name. */
function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/**
 * Splits a request's query string into the method's own parameters and the
 * system parameters, refusing unknown names, repeats of a single-valued
 * parameter, and system parameters Almanac cannot honour (alt other than
 * json, JSONP callbacks, OAuth tokens).
 *
 * @example readParameters(new URL("http://x/v1/documents:searchDocumentChunks?query=a&page_size=2"), SEARCH).parameters.get("pageSize") // ["2"]
 */
export function readParameters(url: URL, method: RestMethod): { parameters: MethodParameters; system: SystemParameters } {
  const byName = new Map(method.parameters.flatMap((name) => [[name, name] as const, [snakeCase(name), name] as const]));
  const parameters: MethodParameters = new Map();
  const system: SystemParameters = { prettyPrint: true, fields: null };
  for (const [name, value] of url.searchParams) {
    const own = byName.get(name);
    if (own) {
      parameters.set(own, [...(parameters.get(own) ?? []), value]);
      continue;
    }
    readSystemParameter(name, value, system, method);
  }
  for (const [name, values] of parameters) {
    if (values.length > 1 && !method.repeated?.includes(name)) {
      throw new AlmanacError("INVALID_ARGUMENT", `${name} is given ${values.length} times; give it once`);
    }
  }
  return { parameters, system };
}

function readSystemParameter(name: string, value: string, system: SystemParameters, method: RestMethod): void {
  switch (name) {
    case "prettyPrint": {
      const flag = value.toLowerCase();
      if (flag !== "true" && flag !== "false") throw new AlmanacError("INVALID_ARGUMENT", `prettyPrint must be true or false, not "${value.slice(0, 40)}"`);
      system.prettyPrint = flag === "true";
      return;
    }
    case "fields":
      system.fields = parseFieldMask(value);
      return;
    case "alt":
      if (value !== "json") throw new AlmanacError("INVALID_ARGUMENT", `alt "${value.slice(0, 40)}" is not served; this server answers JSON only (alt=json)`);
      return;
    case "$.xgafv":
      if (value !== "1" && value !== "2") throw new AlmanacError("INVALID_ARGUMENT", `$.xgafv must be 1 or 2, not "${value.slice(0, 40)}"`);
      return;
    case "callback":
      throw new AlmanacError("INVALID_ARGUMENT", "JSONP (callback) is not served; call from a browser with CORS instead (the operator lists your origin in ALLOWED_ORIGINS)");
    case "access_token":
    case "oauth_token":
      throw new AlmanacError("UNAUTHENTICATED", `OAuth tokens (${name}) are not accepted; send an API key as X-Goog-Api-Key: <key>, Authorization: Bearer <key> or ?key=<key>`);
    default:
      if (ACCEPTED_SYSTEM_PARAMETERS.has(name)) return;
      throw new AlmanacError(
        "INVALID_ARGUMENT",
        `unknown parameter "${name.slice(0, 60)}"; ${method.id} takes ${method.parameters.join(", ")} (and Google's system parameters key, fields, prettyPrint, alt)`,
      );
  }
}

/** The one value of an optional parameter, checked by `schema` (the MCP tools' own field schemas). */
export function optionalValue(parameters: MethodParameters, name: string, schema?: z.ZodType<string | undefined>): string | undefined {
  const value = parameters.get(name)?.[0];
  return schema ? checkedArguments(schema, value) : value;
}

/** The one value of a required parameter; absent or empty is INVALID_ARGUMENT. */
export function requiredValue(parameters: MethodParameters, name: string, schema: z.ZodType<string | undefined>, hint: string): string {
  const value = parameters.get(name)?.[0];
  if (value === undefined) throw new AlmanacError("INVALID_ARGUMENT", `${name} is required; ${hint}`);
  return checkedArguments(schema, value) as string;
}

/** The largest int32, the wire type of Google's integer parameters. */
const MAX_INT32 = 2_147_483_647;

/**
 * An int32 parameter: absent is undefined, anything but a whole number in
 * int32 range is INVALID_ARGUMENT, as Google's front end answers it.
 */
export function int32Value(parameters: MethodParameters, name: string): number | undefined {
  const value = parameters.get(name)?.[0];
  if (value === undefined) return undefined;
  const number = /^[+-]?\d{1,10}$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isInteger(number) || Math.abs(number) > MAX_INT32) {
    throw new AlmanacError("INVALID_ARGUMENT", `${name} must be a whole number (int32), not "${value.slice(0, 40)}"`);
  }
  return number;
}
