// The query-library panel as plain HTML forms: GET /try/library searches,
// opens an entry and renders it from a form generated from its params.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { app } from "../../src/index.ts";
import { getQueryLibraryEntry } from "../../src/library/get.ts";
import { searchQueryLibrary } from "../../src/library/search.ts";
import { loadDefaultLibrary } from "../support/library-fixtures.ts";
import { attributes, getPage, text, texts, visitor } from "../support/landing-page.ts";

beforeAll(async () => {
  await loadDefaultLibrary();
});

const library = (fields: [string, string][]) => getPage(`/try/library?${new URLSearchParams(fields)}`, visitor("198.51.100.40"));

const ISSUES = "github/issues/issues-by-state";

describe("finding entries", () => {
  it("lists query_library_search's hits with their ids, scores and required params, each opening the entry", async () => {
    const intent = "list repositories in a github organization";
    const { response, html } = await library([["intent", intent]]);
    expect(response.status).toBe(200);
    const expected = await searchQueryLibrary(env, { intent, limit: 10 });
    expect(await texts(html, "#library .hits li > a")).toEqual(expected.hits.map((hit) => hit.title));
    expect(await texts(html, "#library .hits code")).toEqual(expected.hits.map((hit) => hit.id));
    expect((await texts(html, "#library .hits .meta"))[0]).toBe(`${expected.hits[0]?.id} · score ${expected.hits[0]?.score.toFixed(1)} · needs org`);
    expect((await attributes(html, "#library .hits li > a", "href"))[0]).toBe(
      `/try/library?intent=list+repositories+in+a+github+organization&id=github%2Frepos%2Frepos-by-org#library`,
    );
  });

  it("hides entries that change resources unless asked, as the tool does", async () => {
    const intent = "stop a compute instance";
    const hidden = await library([["intent", intent]]);
    expect(await texts(hidden.html, "#library .hits code")).not.toContain("google/compute/instance-stop");
    const shown = await library([["intent", intent], ["include_mutations", "true"]]);
    expect(await texts(shown.html, "#library .hits code")).toContain("google/compute/instance-stop");
    expect(await texts(shown.html, "#library .badge")).toContain("changes resources");
  });

  it("gives StackQL's guidance on a miss, and the tool's message for an empty intent", async () => {
    const miss = await library([["intent", "zzyzx"]]);
    expect(await text(miss.html, "#library h4")).toBe("No queries found");
    expect(await text(miss.html, "#library p.hint")).toMatch(/^No vetted query in the library fits this intent well; author the query yourself/);
    const empty = await library([["intent", ""]]);
    expect(empty.response.status).toBe(400);
    expect(await text(empty.html, "#library .error p")).toBe('intent must not be empty; say what you want to query, e.g. "list all s3 buckets"');
  });
});

describe("an opened entry", () => {
  it("shows the teaching view and a field per declared param: choices for enums, text for the rest, defaults and examples as hints", async () => {
    const { html } = await library([["id", ISSUES]]);
    const view = await getQueryLibraryEntry(env, { id: ISSUES });
    expect(await text(html, "#entry-title")).toBe(view.title);
    expect(await text(html, "#entry-template")).toBe(view.template);
    expect(await attributes(html, "#library fieldset input, #library fieldset select", "name")).toEqual(["p.owner", "p.repo", "p.state"]);
    expect(await texts(html, "#param-state option")).toEqual(["Default (open)", "open", "closed", "all"]);
    expect(await attributes(html, "#param-owner", "placeholder")).toEqual(["stackql"]);
    expect(await texts(html, "#library fieldset label")).toEqual(["owner (required)", "repo (required)", "state"]);
    expect(await text(html, "#param-state-hint")).toBe("Which issues to list. Optional; default open. Type enum.");
  });

  it("renders valid values into the SQL query_library_get returns, ready to copy", async () => {
    const fields: [string, string][] = [["id", ISSUES], ["p.owner", "stackql"], ["p.repo", "stackql"], ["p.state", ""]];
    const { response, html } = await library(fields);
    expect(response.status).toBe(200);
    const expected = await getQueryLibraryEntry(env, { id: ISSUES, params: { owner: "stackql", repo: "stackql", state: null } });
    expect(expected.valid).toBe(true);
    expect(await text(html, "#rendered-sql")).toBe(expected.sql);
    expect(expected.sql).toContain("'open'");
    expect(await text(html, "#library p.up")).toBe("Valid: ready to run with run_select_query.");
    // What was typed stays in the fields.
    expect(await attributes(html, "#param-owner", "value")).toEqual(["stackql"]);
  });

  it("shows each validation error beside its field, and every error above the button, without SQL", async () => {
    const { html } = await library([["id", ISSUES], ["p.owner", "not an identifier!"], ["p.repo", ""], ["p.state", "sideways"]]);
    expect(await texts(html, "#rendered-sql")).toEqual([]);
    expect(await texts(html, "#library .render-errors li")).toEqual([
      "missing required params: repo",
      'param "owner" must be an identifier matching ^[A-Za-z_][A-Za-z0-9_-]*$, got "not an identifier!"',
      'param "state" must be one of open, closed, all, got "sideways"',
    ]);
    expect(await text(html, "#param-repo-error")).toBe("Required: enter a value.");
    expect(await text(html, "#param-owner-error")).toMatch(/^param "owner" must be an identifier/);
    expect(await attributes(html, "#param-owner", "aria-invalid")).toEqual(["true"]);
    expect(await attributes(html, "#param-owner", "aria-describedby")).toEqual(["param-owner-hint param-owner-error"]);
    expect(await attributes(html, "#param-state", "aria-invalid")).toEqual(["true"]);
  });

  it("rejects params the entry does not declare, as query_library_get does", async () => {
    const { html } = await library([["id", ISSUES], ["p.owner", "a"], ["p.repo", "b"], ["p.branch", "main"]]);
    expect(await texts(html, "#library .render-errors li")).toEqual(["unknown params rejected: branch"]);
  });

  it("answers a malformed or unknown id with the tool's message in the panel", async () => {
    const malformed = await library([["id", "../etc"]]);
    expect(malformed.response.status).toBe(400);
    expect(await text(malformed.html, "#library .error p")).toBe('invalid query id "../etc"');
    const unknown = await library([["id", "github/nothing/here"]]);
    expect(unknown.response.status).toBe(404);
    expect(await text(unknown.html, "#library .error p")).toBe('unknown query id "github/nothing/here"; use query_library_search to find valid ids');
  });

  it("is turned off with query_library_get, while search still works", async () => {
    const limited = { ...env, ENABLED_TOOLS: "query_library_search" };
    const opened = await app.request(`/try/library?id=${ISSUES}`, {}, limited);
    expect(opened.status).toBe(403);
    expect(await text(await opened.text(), "#library .error p")).toBe(
      "this panel is turned off on this server: its operator left query_library_get out of ENABLED_TOOLS",
    );
    const searched = await app.request("/try/library?intent=open+issues", {}, limited);
    const html = await searched.text();
    expect(searched.status).toBe(200);
    expect(await attributes(html, "#library .hits li > a", "href")).toEqual([]);
  });
});
