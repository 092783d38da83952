/**
 * The items of a comma-separated [vars] entry (ALLOWED_HOSTS, ALLOWED_ORIGINS,
 * ENABLED_TOOLS), trimmed, empty ones dropped; an absent entry is an empty list.
 *
 * @example commaList(" search_documents, ,get_documents") // ["search_documents", "get_documents"]
 */
export function commaList(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
}

/**
 * Characters of text one MCP tool result may carry (RESULT_BUDGET_CHARS).
 * Claude Code warns at 10,000 tokens per tool result and cuts off at 25,000;
 * at about four characters a token, 24,000 characters stay under the warning
 * even with the structured copy of the same text beside it.
 */
export const DEFAULT_RESULT_BUDGET_CHARS = 24_000;
/** Below this a part of a page would be smaller than the lines that carry it. */
const MIN_RESULT_BUDGET_CHARS = 8_000;

/** The result budget from configuration; a missing or unusable value means the default, logged once per value. */
export function resultBudget(env: Pick<Env, "RESULT_BUDGET_CHARS">): number {
  const raw = String(env.RESULT_BUDGET_CHARS ?? "").trim();
  if (raw === "") return DEFAULT_RESULT_BUDGET_CHARS;
  const value = Number(raw);
  if (Number.isInteger(value) && value >= MIN_RESULT_BUDGET_CHARS) return value;
  if (!warnedBudgets.has(raw)) {
    warnedBudgets.add(raw);
    console.warn(`RESULT_BUDGET_CHARS "${raw}" is not a whole number of at least ${MIN_RESULT_BUDGET_CHARS}; using ${DEFAULT_RESULT_BUDGET_CHARS}`);
  }
  return DEFAULT_RESULT_BUDGET_CHARS;
}
const warnedBudgets = new Set<string>();
