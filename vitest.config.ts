// Unit and integration tests, run inside workerd against real D1, KV and
// Durable Objects (Miniflare), with the project's own wrangler.toml.
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, join } from "node:path";
import { defineConfig } from "vitest/config";

const WORKERD_TESTS = ["test/**/*.test.ts"];
const END_TO_END = ["test/e2e/**"];

/**
 * Test files that never touch a binding: neither they nor the test helpers they import use `cloudflare:test` or
 * `cloudflare:workers`. They still run in workerd, but share one runtime instead of starting a Miniflare each,
 * which is most of a small file's time; a file that uses bindings keeps a runtime and storage of its own.
 */
function filesWithoutBindings(): string[] {
  const usesBindings = new Map<string, boolean>();
  const touchesBindings = (path: string): boolean => {
    const known = usesBindings.get(path);
    if (known !== undefined) return known;
    usesBindings.set(path, false); // an import cycle among helpers adds nothing
    const text = readFileSync(path, "utf8");
    const helpers = [...text.matchAll(/from "(\.{1,2}\/[^"]+\.ts)"/g)].map((match) => join(dirname(path), match[1] ?? ""));
    const answer = /from "cloudflare:(test|workers)"/.test(text) || helpers.some((helper) => helper.startsWith("test/") && touchesBindings(helper));
    usesBindings.set(path, answer);
    return answer;
  };
  return readdirSync("test", { recursive: true, encoding: "utf8" })
    .map((path) => join("test", path))
    .filter((path) => path.endsWith(".test.ts") && !path.startsWith("test/e2e/") && !touchesBindings(path));
}

export default defineConfig(async () => {
  const shared = filesWithoutBindings();
  return {
    // Vite warns about every dependency whose source map names files its package does not ship
    // (hundreds of lines from the MCP SDK); test failures and errors still print.
    logLevel: "error" as const,
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          // Test-only binding: the setup file applies these migrations to each test's D1.
          bindings: { TEST_MIGRATIONS: await readD1Migrations("./migrations") },
        },
      }),
    ],
    test: {
      // Vitest's default is one worker per core less one: a single worker on 2 cores, which leaves a core
      // idle while a file's Miniflare starts.
      maxWorkers: Math.max(2, availableParallelism() - 1),
      // Quota tests may wait up to 8 s for a fresh calendar minute (test/quota/clock.ts).
      testTimeout: 30_000,
      projects: [
        {
          extends: true,
          test: { name: "bindings", include: WORKERD_TESTS, exclude: [...END_TO_END, ...shared], setupFiles: ["./test/apply-migrations.ts"] },
        },
        { extends: true, test: { name: "pure", include: shared, isolate: false } },
      ],
    },
  };
});
