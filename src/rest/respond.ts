// Writing a REST response as Google's JSON: proto3 JSON, indented unless
// `prettyPrint=false`, cut to the `fields` asked for.
import type { Context } from "hono";
import { applyFieldMask } from "./field-mask.ts";
import type { SystemParameters } from "./parameters.ts";

/**
 * A message as proto3's JSON mapping writes it: fields at their default (an
 * empty string or list, 0, false) are left out, so a page without a
 * description has no `description` and a citation starting at byte 0 has no
 * `startIndex`, exactly as Google's API answers. Messages themselves are kept,
 * even empty (`sources: [{}]` cites reference 0).
 *
 * @example protoJson({ a: "", b: [], c: 0, d: [{ e: 0 }] }) // { d: [{}] }
 */
export function protoJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(protoJson);
  if (value === null || typeof value !== "object") return value;
  const message: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(value)) {
    if (field === undefined || field === "" || field === 0 || field === false || (Array.isArray(field) && field.length === 0)) continue;
    message[name] = protoJson(field);
  }
  return message;
}

/**
 * A 200 response with `message` as Google writes it. Google's front end
 * indents by default, so `prettyPrint=false` is how a client asks for compact JSON.
 *
 * @example return respond(c, system, { documents });
 */
export function respond(c: Context, system: SystemParameters, message: object): Response {
  const json = protoJson(message);
  const selected = system.fields ? applyFieldMask(json, system.fields) : json;
  const body = system.prettyPrint ? JSON.stringify(selected, null, 2) : JSON.stringify(selected);
  return c.body(body, 200, { "Content-Type": "application/json; charset=UTF-8" });
}
