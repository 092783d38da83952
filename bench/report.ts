// Figures from samples: the `bench:` lines and the tables of BENCHMARKS.md.
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import type { BenchTool, CorpusSamples } from "./measure.ts";
import { TYPICAL_KINDS } from "./queries.ts";

/** One figure, printed as `bench: <name> <value> <unit>`. */
export interface Figure {
  name: string;
  value: number;
  unit: string;
}

/** The p-th percentile (nearest rank) of samples; NaN for none. */
export function percentile(samples: readonly number[], p: number): number {
  const sorted = samples.filter((sample) => Number.isFinite(sample)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

const TOOL_NAMES: Record<BenchTool, string> = { search: "search", get: "get20", answer: "answer" };

/** Every figure of one corpus. */
export function corpusFigures(s: CorpusSamples): Figure[] {
  const c = s.label;
  const figures: Figure[] = [
    { name: `corpus_pages_${c}`, value: s.pages, unit: "pages" },
    { name: `corpus_chunks_${c}`, value: s.chunks, unit: "chunks" },
    { name: `corpus_mb_${c}`, value: s.sourceBytes / 1e6, unit: "MB" },
    { name: `ingest_s_${c}`, value: s.ingestSeconds, unit: "s" },
    { name: `ingest_mb_per_s_${c}`, value: s.sourceBytes / 1e6 / s.ingestSeconds, unit: "MB/s" },
    { name: `ingest_pages_per_s_${c}`, value: s.pages / s.ingestSeconds, unit: "pages/s" },
    { name: `reingest_unchanged_s_${c}`, value: s.reingestSeconds, unit: "s" },
    { name: `db_mb_${c}`, value: s.databaseBytes / 1e6, unit: "MB" },
    { name: `db_bytes_per_chunk_${c}`, value: s.databaseBytes / s.chunks, unit: "B" },
    { name: `db_bytes_per_page_${c}`, value: s.databaseBytes / s.pages, unit: "B" },
    { name: `floor_p50_${c}`, value: percentile(s.floor, 50), unit: "ms" },
    { name: `d1_floor_p50_${c}`, value: percentile(s.d1Floor, 50), unit: "ms" },
    { name: `d1_floor_raw_p50_${c}`, value: percentile(s.rawD1Floor, 50), unit: "ms" },
  ];
  for (const tool of ["search", "get", "answer"] as const) {
    const t = TOOL_NAMES[tool];
    for (const p of [50, 95]) {
      const server = percentile(s.server[tool], p);
      const raw = percentile(s.raw[tool], p);
      const inTool = percentile(s.tool[tool], p);
      figures.push(
        { name: `${t}_p${p}_server_${c}`, value: server, unit: "ms" },
        { name: `${t}_p${p}_legacy_${c}`, value: percentile(s.legacy[tool], p), unit: "ms" },
        { name: `${t}_p${p}_raw_${c}`, value: raw, unit: "ms" },
        { name: `${t}_p${p}_ratio_${c}`, value: server / raw, unit: "x" },
        { name: `${t}_p${p}_tool_${c}`, value: inTool, unit: "ms" },
        { name: `${t}_p${p}_tool_ratio_${c}`, value: inTool / raw, unit: "x" },
      );
    }
    const worker = percentile(s.worker[tool], 50);
    const inTool = percentile(s.tool[tool], 50);
    const floor = percentile(s.floor, 50);
    figures.push(
      { name: `${t}_p50_tool_d1_${c}`, value: percentile(s.toolD1[tool], 50), unit: "ms" },
      { name: `${t}_p50_tool_shape_${c}`, value: percentile(s.toolShape[tool], 50), unit: "ms" },
      { name: `${t}_p50_worker_${c}`, value: worker, unit: "ms" },
      // What the round trip adds beyond the tool itself and the dev server's floor: MCP framing and validation, auth, quota.
      { name: `${t}_p50_mcp_overhead_${c}`, value: percentile(s.server[tool], 50) - inTool - floor, unit: "ms" },
      // What a 2025-era session adds to the same call: the Durable Object hop and its session handling.
      { name: `${t}_p50_do_overhead_${c}`, value: percentile(s.legacy[tool], 50) - percentile(s.server[tool], 50), unit: "ms" },
    );
  }
  const typical = TYPICAL_KINDS.flatMap((kind) => s.searchByKind[kind]?.tool ?? []);
  const typicalServer = TYPICAL_KINDS.flatMap((kind) => s.searchByKind[kind]?.server ?? []);
  figures.push(
    { name: `search_p50_tool_typical_${c}`, value: percentile(typical, 50), unit: "ms" },
    { name: `search_p50_server_typical_${c}`, value: percentile(typicalServer, 50), unit: "ms" },
  );
  for (const [kind, entry] of Object.entries(s.searchByKind)) {
    figures.push(
      { name: `search_p50_tool_${kind}_${c}`, value: percentile(entry.tool, 50), unit: "ms" },
      { name: `search_p50_raw_${kind}_${c}`, value: percentile(entry.raw, 50), unit: "ms" },
      { name: `search_p50_server_${kind}_${c}`, value: percentile(entry.server, 50), unit: "ms" },
    );
    if (!TYPICAL_KINDS.includes(kind as (typeof TYPICAL_KINDS)[number])) {
      figures.push({ name: `search_p50_${kind}_vs_typical_${c}`, value: percentile(entry.tool, 50) / percentile(typical, 50), unit: "x" });
    }
  }
  return figures;
}

/** Figures comparing corpora: growth of the in-tool search time from the smaller synthetic corpus to the larger. */
export function growthFigures(corpora: readonly CorpusSamples[], small: string, large: string): Figure[] {
  const a = corpora.find((corpus) => corpus.label === small);
  const b = corpora.find((corpus) => corpus.label === large);
  if (!a || !b) return [];
  const typical = (s: CorpusSamples, key: "tool" | "server" | "raw") => percentile(TYPICAL_KINDS.flatMap((kind) => s.searchByKind[kind]?.[key] ?? []), 50);
  return [
    { name: `search_p50_growth_tool_${small}_to_${large}`, value: typical(b, "tool") / typical(a, "tool"), unit: "x" },
    { name: `search_p50_growth_server_${small}_to_${large}`, value: typical(b, "server") / typical(a, "server"), unit: "x" },
    { name: `search_p50_growth_raw_${small}_to_${large}`, value: typical(b, "raw") / typical(a, "raw"), unit: "x" },
  ];
}

/** `bench: <name> <value> <unit>`, the value with three significant decimals at most. */
export function figureLine(figure: Figure): string {
  const value = Number.isFinite(figure.value) ? (Math.abs(figure.value) >= 100 ? figure.value.toFixed(0) : figure.value.toFixed(2)) : "n/a";
  return `bench: ${figure.name} ${value} ${figure.unit}`;
}

const value = (figures: readonly Figure[], name: string): string => {
  const figure = figures.find((candidate) => candidate.name === name);
  if (!figure || !Number.isFinite(figure.value)) return "—";
  return Math.abs(figure.value) >= 100 ? figure.value.toFixed(0) : figure.value.toFixed(2);
};

/** The Markdown tables of one run. */
export function markdownTables(figures: readonly Figure[], corpora: readonly string[]): string {
  const v = (name: string) => value(figures, name);
  const lines: string[] = [];
  lines.push("### Corpora and ingestion", "", `| | ${corpora.join(" | ")} |`, `|---|${corpora.map(() => "---").join("|")}|`);
  for (const [label, key] of [
    ["pages", "corpus_pages"],
    ["chunks", "corpus_chunks"],
    ["Markdown (MB)", "corpus_mb"],
    ["ingest (s)", "ingest_s"],
    ["ingest MB/s", "ingest_mb_per_s"],
    ["ingest pages/s", "ingest_pages_per_s"],
    ["unchanged re-ingest (s)", "reingest_unchanged_s"],
    ["database file (MB)", "db_mb"],
    ["database bytes per chunk", "db_bytes_per_chunk"],
    ["database bytes per page", "db_bytes_per_page"],
  ]) {
    lines.push(`| ${label} | ${corpora.map((c) => v(`${key}_${c}`)).join(" | ")} |`);
  }
  lines.push("", "### Latency, ms (p50 / p95)", "", `| | ${corpora.join(" | ")} |`, `|---|${corpora.map(() => "---").join("|")}|`);
  for (const [tool, label] of [["search", "search_documents"], ["get20", "get_documents (20 names)"], ["answer", "answer_query"]] as const) {
    const both = (key: string) => corpora.map((c) => `${v(`${tool}_p50_${key}_${c}`)} / ${v(`${tool}_p95_${key}_${c}`)}`).join(" | ");
    lines.push(`| **${label}**: MCP client round trip, 2026-07-28 (in the Worker) | ${both("server")} |`);
    lines.push(`| MCP client round trip, 2025 session (in its Durable Object) | ${both("legacy")} |`);
    lines.push(`| in the tool | ${both("tool")} |`);
    lines.push(`| raw SQLite, same SQL | ${both("raw")} |`);
    lines.push(`| in the tool ÷ raw | ${both("tool_ratio")} |`);
    lines.push(`| round trip ÷ raw | ${both("ratio")} |`);
  }
  lines.push("", "### Where a call's time goes, p50 ms", "", `| | ${corpora.join(" | ")} |`, `|---|${corpora.map(() => "---").join("|")}|`);
  lines.push(`| dev server floor (a request with no I/O) | ${corpora.map((c) => v(`floor_p50_${c}`)).join(" | ")} |`);
  lines.push(`| one small D1 query in the Worker (/healthz's count; raw in brackets) | ${corpora.map((c) => `${v(`d1_floor_p50_${c}`)} (${v(`d1_floor_raw_p50_${c}`)})`).join(" | ")} |`);
  for (const [tool, label] of [["search", "search_documents"], ["get20", "get_documents (20)"], ["answer", "answer_query"]] as const) {
    lines.push(`| **${label}**: D1 in the tool | ${corpora.map((c) => v(`${tool}_p50_tool_d1_${c}`)).join(" | ")} |`);
    lines.push(`| ranking and shaping in the tool | ${corpora.map((c) => v(`${tool}_p50_tool_shape_${c}`)).join(" | ")} |`);
    lines.push(`| MCP framing, auth, quota, client (round trip − tool − floor) | ${corpora.map((c) => v(`${tool}_p50_mcp_overhead_${c}`)).join(" | ")} |`);
    lines.push(`| a 2025 session's Durable Object on top | ${corpora.map((c) => v(`${tool}_p50_do_overhead_${c}`)).join(" | ")} |`);
  }
  lines.push("", "### search_documents by query kind, in the tool, p50 ms (raw in brackets)", "", `| kind | ${corpora.join(" | ")} |`, `|---|${corpora.map(() => "---").join("|")}|`);
  for (const kind of ["keyword", "identifier", "question", "common", "long"]) {
    lines.push(`| ${kind} | ${corpora.map((c) => `${v(`search_p50_tool_${kind}_${c}`)} (${v(`search_p50_raw_${kind}_${c}`)})`).join(" | ")} |`);
  }
  lines.push(`| typical (keyword, identifier, question) | ${corpora.map((c) => v(`search_p50_tool_typical_${c}`)).join(" | ")} |`);
  lines.push(`| common ÷ typical | ${corpora.map((c) => v(`search_p50_common_vs_typical_${c}`)).join(" | ")} |`);
  lines.push(`| 500 characters ÷ typical | ${corpora.map((c) => v(`search_p50_long_vs_typical_${c}`)).join(" | ")} |`);
  return lines.join("\n");
}

/**
 * Puts `section` (its own begin and end markers included) in place of the text
 * between `begin` and `end` in `file`, or appends it when the file has no such
 * section (creating the file if needed); everything outside is kept. The bench
 * and the load generator each own one section of BENCHMARKS.md this way.
 */
export async function replaceMarkedSection(file: string, begin: string, end: string, section: string): Promise<void> {
  const existing = existsSync(file) ? await readFile(file, "utf8") : "# Benchmarks\n";
  const from = existing.indexOf(begin);
  const to = existing.indexOf(end);
  const next = from >= 0 && to > from ? `${existing.slice(0, from)}${section}${existing.slice(to + end.length)}` : `${existing.trimEnd()}\n\n${section}\n`;
  await writeFile(file, next);
}
