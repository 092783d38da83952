// The default library that `npm start` loads (corpus/library) and the
// snapshot of it bundled into the Worker.
import { describe, expect, it } from "vitest";
import { DEFAULT_LIBRARY_SNAPSHOT } from "../../src/generated/default-library.ts";
import { isMutation } from "../../src/library/entry.ts";
import { prepareLibrary } from "../../src/library/parse-entry.ts";
import { renderTemplate } from "../../src/library/render.ts";
import { rankEntries } from "../../src/library/scoring.ts";
import { defaultLibraryFiles } from "../support/library-fixtures.ts";

const { entries, refused } = prepareLibrary(defaultLibraryFiles());

describe("the default library", () => {
  it("is valid StackQL format, at least 12 entries, over cloudflare, github and google", () => {
    expect(refused).toEqual([]);
    expect(entries.length).toBeGreaterThanOrEqual(12);
    expect(new Set(entries.map((entry) => entry.id.split("/")[0]))).toEqual(new Set(["cloudflare", "github", "google"]));
  });

  it("declares params of every type and holds mutation and lifecycle entries", () => {
    const types = new Set(entries.flatMap((entry) => entry.params.map((param) => param.type)));
    expect([...types].sort()).toEqual(["boolean", "enum", "identifier", "number", "string"]);
    expect(entries.some((entry) => entry.verb === "mutation")).toBe(true);
    expect(entries.some((entry) => entry.verb === "lifecycle")).toBe(true);
  });

  it.each(entries.map((entry) => [entry.id, entry] as const))("renders %s with its examples and defaults", (_id, entry) => {
    const values = Object.fromEntries(entry.params.map((param) => [param.name, param.example ?? param.default]));
    const result = renderTemplate(entry, values);
    expect(result.errors).toEqual([]);
    expect(result.sql).not.toContain("{{");
  });

  it.each(entries.map((entry) => [entry.id, entry] as const))("puts %s first when asked its first intent keyword", (id, entry) => {
    const intent = entry.intent_keywords[0] ?? "";
    const { hits } = rankEntries(entries, { intent, include_mutations: isMutation(entry), limit: 1 }, "safe");
    expect(hits[0]?.id).toBe(id);
  });

  it("is bundled up to date (run `npm run library:snapshot` after editing corpus/library)", () => {
    expect(DEFAULT_LIBRARY_SNAPSHOT).toEqual(entries);
  });
});
