// A page's camelCase identifiers count for the words they are made of
// (issue 21): a question says "the outer loop" or "listens", the page says
// `outerLoop` or `onListen`. Ranking's coverage and the answer's sentence
// scores both read a text's stems through these two functions.
import { describe, expect, it } from "vitest";
import { queryStemsIn, stemFinder, stemsOf } from "../../src/documents/search/rank.ts";

describe("a text's stems", () => {
  it("hold a camelCase identifier whole and its parts", () => {
    const stems = stemsOf("Use `break outerLoop;` inside the inner loop.", new Map());
    expect(stems).toContain("outerloop");
    expect(stems).toContain("outer");
    expect(stems).toContain("loop");
  });

  it("split only camelCase, as a query's identifiers are split", () => {
    const stems = stemsOf("The pubspec.yaml file and the get_documents tool.", new Map());
    expect(stems).toContain("pubspec.yaml");
    expect(stems).not.toContain("documents");
  });
});

describe("the query's stems found in a text", () => {
  const finder = stemFinder([
    { stem: "listen", weight: 2 },
    { stem: "outer", weight: 3 },
  ]);

  it("include a question's word that is part of an identifier in the text", () => {
    expect(queryStemsIn("Pass `onListen` to the controller.", finder, new Map())).toContain("listen");
    expect(queryStemsIn("Leave both with `break outerLoop;`.", finder, new Map())).toContain("outer");
  });

  it("are only the words the text has, whole or inside a camelCase identifier", () => {
    const found = queryStemsIn("Pass a callback to the controller once it listened to the outermost one.", finder, new Map());
    expect(found).toContain("listen");
    expect(found).not.toContain("outer");
    expect(queryStemsIn("Pass a callback to the controller.", finder, new Map()).size).toBe(0);
  });
});
