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
