// The Worker bundle `wrangler deploy` would upload: the REST facade is in it,
// and Google's client (a dev dependency for the e2e tests) never is.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";

it("bundles src/rest and nothing of googleapis, googleapis-common or gaxios", () => {
  const outdir = mkdtempSync(join(tmpdir(), "almanac-bundle-"));
  try {
    const build = spawnSync(process.execPath, ["node_modules/wrangler/bin/wrangler.js", "deploy", "--dry-run", "--outdir", outdir, "--metafile"], { encoding: "utf8", timeout: 120_000 });
    expect(build.status, `${build.stdout}${build.stderr}`).toBe(0);
    const inputs = Object.keys((JSON.parse(readFileSync(join(outdir, "bundle-meta.json"), "utf8")) as { inputs: Record<string, unknown> }).inputs);
    expect(inputs).toContain("src/rest/routes.ts");
    // Dependencies are listed by their path under node_modules, as the pattern below expects.
    expect(inputs).toContain("node_modules/hono/dist/middleware/etag/index.js");
    expect(inputs.filter((path) => /node_modules\/(googleapis|googleapis-common|gaxios|google-auth-library)\//.test(path))).toEqual([]);
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
});
