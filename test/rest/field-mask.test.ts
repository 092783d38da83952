// Google's `fields` selection and proto3's JSON defaults, on plain values.
import { describe, expect, it } from "vitest";
import { applyFieldMask, parseFieldMask } from "../../src/rest/field-mask.ts";
import { protoJson } from "../../src/rest/respond.ts";

const response = {
  results: [
    { parent: "documents/a", id: "intro", content: "…", document: { name: "documents/a", title: "A", view: "DOCUMENT_VIEW_BASIC" } },
    { parent: "documents/b", id: "usage", content: "…", document: { name: "documents/b", title: "B", view: "DOCUMENT_VIEW_BASIC" } },
  ],
  nextPageToken: "NQ",
};

describe("fields", () => {
  it("selects inside every item of a list with a(b,c) and a/b", () => {
    expect(applyFieldMask(response, parseFieldMask("results(parent,document/title)"))).toEqual({
      results: [
        { parent: "documents/a", document: { title: "A" } },
        { parent: "documents/b", document: { title: "B" } },
      ],
    });
  });

  it("takes proto names, merges repeated paths and lets a whole field absorb a narrower selection", () => {
    expect(applyFieldMask(response, parseFieldMask("next_page_token,results/id,results/parent"))).toEqual({
      nextPageToken: "NQ",
      results: [
        { id: "intro", parent: "documents/a" },
        { id: "usage", parent: "documents/b" },
      ],
    });
    expect(applyFieldMask(response, parseFieldMask("results/id,results"))).toEqual({ results: response.results });
  });

  it("selects every field with *, and skips a field the response does not have", () => {
    expect(applyFieldMask(response, parseFieldMask("results/*"))).toEqual({ results: response.results });
    expect(applyFieldMask({ results: [] }, parseFieldMask("results,nextPageToken"))).toEqual({ results: [] });
  });

  it.each([
    ["", 'fields "" is not a valid field selection: expected a field name at character 1'],
    ["results(", 'fields "results(" is not a valid field selection: expected a field name at character 9'],
    ["results)", 'fields "results)" is not a valid field selection: unexpected ")" at character 8'],
    ["a,,b", 'fields "a,,b" is not a valid field selection: expected a field name at character 3'],
    ["a/", 'fields "a/" is not a valid field selection: expected a field name at character 3'],
  ])("refuses %j with a message saying where", (text, message) => {
    expect(() => parseFieldMask(text)).toThrow(message);
  });
});

describe("protoJson", () => {
  it("leaves out fields at their default and keeps empty messages", () => {
    expect(
      protoJson({
        answer: {
          answerText: "x",
          references: [],
          citations: [{ startIndex: 0, endIndex: 12, sources: [{ referenceIndex: 0 }, { referenceIndex: 1 }] }],
        },
        description: "",
        flag: false,
        missing: undefined,
      }),
    ).toEqual({ answer: { answerText: "x", citations: [{ endIndex: 12, sources: [{}, { referenceIndex: 1 }] }] } });
  });
});
