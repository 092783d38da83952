// Requests to the REST facade through the Worker's real fetch handler, and
// Google's discovery document, which the tests take their expectations from.
import { createExecutionContext, env } from "cloudflare:test";
import { app } from "../../src/index.ts";
import discoveryDocument from "../fixtures/developerknowledge/developerknowledge.v1.json";

/** Google's discovery document for the Developer Knowledge API v1 (a verbatim copy). */
const discovery = discoveryDocument;

/** A request to this Worker, with the test environment or some of it changed. */
export async function rest(path: string, init: RequestInit = {}, vars: Partial<Env> = {}): Promise<Response> {
  return app.fetch(new Request(new URL(path, "http://localhost"), init), { ...env, ...vars }, createExecutionContext());
}

/** A request's JSON body and status, for the common case. */
export async function restJson<T = Record<string, unknown>>(path: string, init: RequestInit = {}, vars: Partial<Env> = {}) {
  const response = await rest(path, init, vars);
  return { status: response.status, headers: response.headers, body: (await response.json()) as T };
}

/** POST /v1:answerQuery with a JSON body. */
export function answerQuery(body: unknown, headers: Record<string, string> = {}, vars: Partial<Env> = {}): Promise<Response> {
  return rest("/v1:answerQuery", { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(body) }, vars);
}

/** A property or parameter of the discovery document, as far as these tests read it. */
interface DiscoveryProperty {
  type?: string;
  format?: string;
  $ref?: string;
  enum?: string[];
  items?: DiscoveryProperty;
  description?: string;
  enumDescriptions?: string[];
}

interface DiscoveryMethod {
  id: string;
  flatPath: string;
  httpMethod: string;
  parameters: Record<string, DiscoveryProperty & { location: string; repeated?: boolean }>;
}

interface Discovery {
  parameters: Record<string, DiscoveryProperty>;
  schemas: Record<string, { properties: Record<string, DiscoveryProperty> }>;
  resources: Record<string, { methods: Record<string, DiscoveryMethod> }>;
}

/**
 * Fields of a later revision than the fixture's, as the `googleapis` package
 * the e2e tests drive declares them (SOURCE.md): DocumentChunk.relevanceScore.
 */
const LATER_REVISION: Record<string, Record<string, DiscoveryProperty>> = {
  DocumentChunk: {
    relevanceScore: {
      type: "number",
      format: "float",
      description: "Output only. Represents the relevance score of the chunk to the search query. Higher score indicates higher chunk relevance. The score is in range [0.0, 1.0].",
    },
  },
};

const typed: Discovery = {
  ...discovery,
  schemas: Object.fromEntries(
    Object.entries((discovery as Discovery).schemas).map(([name, schema]) => [name, { ...schema, properties: { ...schema.properties, ...LATER_REVISION[name] } }]),
  ),
};

/** Every method of the discovery document, by id. */
export const discoveryMethods: Record<string, DiscoveryMethod> = Object.fromEntries(
  Object.values(typed.resources).flatMap((resource) => Object.values(resource.methods).map((method) => [method.id, method])),
);

/** Google's system parameters (the document's top-level `parameters`). */
export const systemParameters = typed.parameters;

/** A schema's properties. */
export function schemaProperties(name: string): Record<string, DiscoveryProperty> {
  const schema = typed.schemas[name];
  if (!schema) throw new Error(`the discovery document has no schema ${name}`);
  return schema.properties;
}

/** RFC 3339 with a Z offset, as Google writes google-datetime. */
const GOOGLE_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

/**
 * Where `value` departs from the discovery document's schema: a field the
 * schema does not have, or a value of another type. Empty when it conforms.
 */
export function schemaViolations(value: unknown, property: DiscoveryProperty, path = "$"): string[] {
  if (property.$ref) {
    if (value === null || typeof value !== "object" || Array.isArray(value)) return [`${path} is not an object (${property.$ref})`];
    const properties = schemaProperties(property.$ref);
    return Object.entries(value).flatMap(([name, field]) => {
      const declared = properties[name];
      return declared ? schemaViolations(field, declared, `${path}.${name}`) : [`${path}.${name} is not a field of ${property.$ref}`];
    });
  }
  switch (property.type) {
    case "array":
      return Array.isArray(value) ? value.flatMap((item, index) => schemaViolations(item, property.items ?? {}, `${path}[${index}]`)) : [`${path} is not an array`];
    case "integer":
      return Number.isInteger(value) && Math.abs(value as number) < 2 ** 31 ? [] : [`${path} is not an int32`];
    case "number":
      return typeof value === "number" && Number.isFinite(value) ? [] : [`${path} is not a number`];
    case "string":
      if (typeof value !== "string") return [`${path} is not a string`];
      if (property.enum && !property.enum.includes(value)) return [`${path} "${value}" is not one of ${property.enum.join(", ")}`];
      if (property.format === "google-datetime" && !GOOGLE_DATETIME.test(value)) return [`${path} "${value}" is not an RFC 3339 timestamp`];
      return [];
    default:
      return [`${path}: the test does not know type ${property.type}`];
  }
}
