// What the candidate statement's MATCH choice (search/choose-match.ts) picks for a query, run on this test's D1.
import { env } from "cloudflare:test";
import { choiceStatement, chosenMatch } from "../../src/documents/search/choose-match.ts";
import { matchTerms } from "../../src/documents/search/query-text.ts";

/** The MATCH expression chosen for `query` within `budget` postings. */
export async function chosenExpression(query: string, budget: number): Promise<string | undefined> {
  const match = chosenMatch(matchTerms(query), { room: 98, budget });
  if (!match) throw new Error("the match did not fit");
  const { sql, params } = choiceStatement(match);
  return (await env.DB.prepare(sql).bind(...params).first<{ expression: string }>())?.expression;
}
