// What a strict ingester must make of StackQL's real library files, exactly
// as test/fixtures/stackql-query-library/EXPECTED.md states it.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { getQueryLibraryEntry } from "../../src/library/get.ts";
import { describeRefusals } from "../../src/library/parse-entry.ts";
import { renderTemplate } from "../../src/library/render.ts";
import { emittedEntry, loadStackqlLibrary, preparedStackqlLibrary } from "../support/library-fixtures.ts";

const { entries, refused } = preparedStackqlLibrary();

/** Where the emitted JSON comes from another version of the library (EXPECTED.md). */
const TEMPLATE_DIFFERS = ["aws/iam/users-list", "databricks/provisioning/workspaces-list", "google/storage/buckets-by-project"];
/** SOURCE.md: for functions-list the Markdown is newer; its Notes end with a sentence the JSON lacks. */
const NOTES_DIFFER = [...TEMPLATE_DIFFERS, "aws/lambda/functions-list"];
const NO_EMITTED_JSON = ["azure/storage/storage-accounts-security"];

describe("ingesting the 31 real StackQL entries", () => {
  it("accepts 29 and refuses 2", () => {
    expect(entries).toHaveLength(29);
    expect(refused.map((file) => file.path)).toEqual(["aws/cloud_control/log-group-retention-update.md", "aws/ec2/instance-stop.md"]);
  });

  it("names the file and the `format` key each refusal is about", () => {
    for (const file of refused) {
      expect(file.problems).toContainEqual({ field: "format", message: "unknown key; the front-matter schema allows no other keys" });
    }
    expect(describeRefusals(refused)).toContain("aws/ec2/instance-stop.md: format: unknown key; the front-matter schema allows no other keys");
  });

  it("also reports the {{ name }} placeholders and the params they leave unused", () => {
    const lines = describeRefusals(refused);
    expect(lines).toContain("aws/ec2/instance-stop.md: ## Query: malformed placeholder {{ instance_id }}; write {{name}} with no spaces");
    expect(lines).toContain('aws/ec2/instance-stop.md: params[1]: "instance_id" is declared but not used in the template');
    expect(lines).toContain('aws/cloud_control/log-group-retention-update.md: params[2]: "retention_days" is declared but not used in the template');
  });

  it("stores each template as the emitted JSON has it, except where the JSON is another version", () => {
    const equal = entries.filter((entry) => entry.template === emittedEntry(entry.id)?.template).map((entry) => entry.id);
    const differ = entries.filter((entry) => emittedEntry(entry.id) && entry.template !== emittedEntry(entry.id)?.template).map((entry) => entry.id);
    expect(equal).toHaveLength(25);
    expect(differ).toEqual(TEMPLATE_DIFFERS);
    expect(entries.filter((entry) => !emittedEntry(entry.id)).map((entry) => entry.id)).toEqual(NO_EMITTED_JSON);
  });

  it("flattens ## Notes as StackQL's build does", () => {
    const same = entries.filter((entry) => emittedEntry(entry.id) && !NOTES_DIFFER.includes(entry.id));
    expect(same).toHaveLength(24);
    for (const entry of same) expect(entry.notes, entry.id).toBe(emittedEntry(entry.id)?.notes ?? "");
  });

  it("derives mutation from the verb as the emitted JSON does", () => {
    for (const entry of entries) {
      const emitted = emittedEntry(entry.id);
      if (emitted) expect(entry.verb !== "select", entry.id).toBe(emitted.mutation);
    }
  });

  it.each(entries.map((entry) => [entry.id, entry] as const))("renders %s with its declared examples and defaults", (_id, entry) => {
    const values = Object.fromEntries(entry.params.map((param) => [param.name, param.example ?? param.default]));
    const result = renderTemplate(entry, values);
    expect(result.errors).toEqual([]);
    expect(result.valid).toBe(true);
    expect(result.sql).not.toContain("{{");
  });
});

describe("the real library served from D1 and KV", () => {
  beforeAll(async () => {
    await loadStackqlLibrary();
  });

  it("serves every stored template byte for byte", async () => {
    for (const entry of entries) {
      const view = await getQueryLibraryEntry(env, { id: entry.id });
      expect(view.template, entry.id).toBe(entry.template);
      expect(view.source_tier).toBe("primary");
    }
  });

  it("does not serve the refused entries", async () => {
    await expect(getQueryLibraryEntry(env, { id: "aws/ec2/instance-stop" })).rejects.toThrow(
      'unknown query id "aws/ec2/instance-stop"; use query_library_search to find valid ids',
    );
  });
});
