// The zod front-matter schema against StackQL's JSON schema file, rule for
// rule, and the messages an author reads when a rule is broken.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { checkFrontMatter, frontMatterSchema } from "../../src/library/front-matter.ts";
import stackqlSchema from "../fixtures/stackql-query-library/schema/front-matter.schema.json";

/**
 * The constraints of a schema: without keywords that only annotate, without
 * zod's `type` next to an all-string `enum` (implied), and with patterns in
 * RegExp source form (zod writes "/" as "\/", the same expression).
 */
function constraints(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(constraints);
  if (node === null || typeof node !== "object") return node;
  const entries = Object.entries(node).filter(([key]) => !["$schema", "$id", "title", "description", "default"].includes(key));
  const object = Object.fromEntries(
    entries.map(([key, value]) => [
      key,
      key === "properties" ? constraintsOfProperties(value) : key === "pattern" ? new RegExp(String(value)).source : constraints(value),
    ]),
  );
  if (Array.isArray(object.enum) && object.enum.every((value: unknown) => typeof value === "string") && object.type === "string") delete object.type;
  return object;
}

function constraintsOfProperties(properties: unknown): unknown {
  return Object.fromEntries(Object.entries(properties as Record<string, unknown>).map(([name, schema]) => [name, constraints(schema)]));
}

const valid = {
  title: "S3 buckets cheap enumeration",
  description: "Enumerates S3 bucket names and regions via the list-only resource.",
  verb: "select",
  status: "stable",
  providers: ["aws"],
  services: ["s3"],
  tags: ["aws", "s3"],
  intent_keywords: ["list all s3 buckets", "bucket inventory"],
  params: [{ name: "region", type: "identifier", required: true, description: "Routing region", example: "us-east-1" }],
  cost: { fan_out: "none", expensive: false },
};

describe("the front-matter schema", () => {
  it("has exactly the constraints of StackQL's front-matter.schema.json", () => {
    expect(constraints(z.toJSONSchema(frontMatterSchema))).toEqual(constraints(stackqlSchema));
  });

  it("accepts a minimal valid entry", () => {
    expect(checkFrontMatter(valid)).toHaveProperty("frontMatter");
  });

  it.each([
    [{ ...valid, format: "md" }, "format", "unknown key; the front-matter schema allows no other keys"],
    [{ ...valid, title: "S3" }, "title", "must be at least 5 characters"],
    [{ ...valid, verb: "drop" }, "verb", "must be one of select, mutation, lifecycle"],
    [{ ...valid, tags: ["aws"] }, "tags", "needs at least 2 item(s)"],
    [{ ...valid, tags: ["aws", "S3"] }, "tags[1]", "must match /^[a-z0-9_-]+$/"],
    [{ ...valid, cost: undefined }, "cost", "is required"],
    [{ ...valid, params: [{ ...valid.params[0], secret: true }] }, "params[0].secret", "unknown key; the front-matter schema allows no other keys"],
    [{ ...valid, params: [{ ...valid.params[0], default: null }] }, "params[0].default", "must be a string, number or boolean"],
    [{ ...valid, related: ["aws/s3"] }, "related[0]", "must match /^[a-z0-9_-]+\\/[a-z0-9_-]+\\/[a-z0-9_-]+$/"],
  ])("names the field at fault: %#", (data, field, message) => {
    expect(checkFrontMatter(data)).toEqual({ problems: [{ field, message }] });
  });
});
