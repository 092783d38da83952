// src/ reads top-down: no module imports one that imports it back, even for types only.
import { describe, expect, it } from "vitest";

const sources = import.meta.glob<string>(["../../src/**/*.ts", "../../src/**/*.tsx"], { query: "?raw", import: "default", eager: true });

/** The relative modules a source names in import and export-from statements, resolved to glob keys. */
function importsOf(key: string, text: string): string[] {
  const specifiers = [...text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s*["'](\.{1,2}\/[^"']+)["']/gms)].map((match) => match[1] as string);
  return specifiers.map((specifier) => {
    const parts = key.split("/").slice(0, -1);
    for (const part of specifier.split("/")) {
      if (part === "..") parts.pop();
      else if (part !== ".") parts.push(part);
    }
    return parts.join("/");
  });
}

/** Every cycle found by depth-first search, each as the path of modules that closes it. */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (node: string) => {
    state.set(node, "open");
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === "open") cycles.push([...path.slice(path.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(node, "done");
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return cycles;
}

describe("src/ imports", () => {
  const graph = new Map(Object.entries(sources).map(([key, text]) => [key, importsOf(key, text)]));

  it("resolve to files in src/, so the check below sees every edge", () => {
    const unknown = [...graph].flatMap(([key, targets]) => targets.filter((target) => !graph.has(target)).map((target) => `${key} -> ${target}`));
    expect(graph.size).toBeGreaterThan(50);
    expect(unknown).toEqual([]);
  });

  it("form no cycle", () => {
    expect(cyclesOf(graph).map((cycle) => cycle.join(" -> "))).toEqual([]);
  });

  it("would be caught if two modules imported each other", () => {
    expect(cyclesOf(new Map([["a.ts", ["b.ts"]], ["b.ts", ["a.ts"]]]))).toEqual([["a.ts", "b.ts", "a.ts"]]);
  });
});
