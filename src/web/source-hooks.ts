// POST /sources/<name>/hooks/<provider>: a source's origin says it changed (issue 38). Verified pushes start the
// source's refresh now; anything unverified, replayed, oversized or malformed is refused and changes nothing.
import { Hono } from "hono";
import { AlmanacError } from "../errors.ts";
import { errorHandler } from "../http/error-handler.ts";
import { RefusalError } from "../http/refusal.ts";
import { BodyRefused, readBody } from "../readers/http.ts";
import { deriveHookSecret, hookKeyProblem } from "../sources/hook-secrets.ts";
import { HOOK_PROVIDERS, MAX_HOOK_BODY_BYTES, readHookRequest, type HookProvider } from "../sources/hooks.ts";
import { acceptPush } from "../sources/pushes.ts";
import { getSource, type Source } from "../sources/sources.ts";

/** The webhook route, to mount at the root. */
export function sourceHooksSite(): Hono<{ Bindings: Env }> {
  const site = new Hono<{ Bindings: Env }>();
  // Senders are programs (GitHub, GitLab, CI): refusals in Google's error body, like the REST facade's.
  site.onError(errorHandler);
  site.post("/sources/:name/hooks/:provider", async (c) => {
    const { name, provider } = c.req.param();
    if (!(HOOK_PROVIDERS as readonly string[]).includes(provider)) {
      throw new AlmanacError("NOT_FOUND", `no hook provider "${provider.slice(0, 40)}"; a source's hooks are ${HOOK_PROVIDERS.map((p) => `/sources/${name}/hooks/${p}`).join(", ")}`);
    }
    const key = (c.env as { HOOK_KEY?: string }).HOOK_KEY;
    const keyProblem = hookKeyProblem(key);
    if (keyProblem || !key) {
      throw new AlmanacError("UNAVAILABLE", `webhooks are off on this server (${keyProblem}); its operator sets HOOK_KEY (corpus/docs/keeping-sources-fresh.md)`);
    }
    const body = await readPushBody(c.req.raw);
    const source = await getSource(c.env.DB, name);
    if (!source) throw new AlmanacError("NOT_FOUND", `no source named "${name.slice(0, 64)}"; GET /sources lists them`);
    if (!source.hook) throw new AlmanacError("PERMISSION_DENIED", `source "${name}" has no webhook secret; its operator sets one with npm run sources -- hook ${name}`);
    const secret = await deriveHookSecret(key, name, source.hook.salt);
    const request = await readHookRequest(provider as HookProvider, c.req.raw.headers, body, secret, Date.now());
    if ("ignored" in request) return c.json({ source: name, ignored: request.ignored });
    const { push } = request;
    const otherBranch = push.ref && branchMismatch(source, push.ref);
    if (otherBranch) return c.json({ source: name, ignored: otherBranch });
    const accepted = await acceptPush(c.env.DB, c.env.SOURCE_REFRESH, name, provider, push, Date.now());
    const changes = push.changes.paths ? `${push.changes.paths.length} paths` : push.changes.urls ? `${push.changes.urls.length} URLs` : "a whole run";
    console.log(`sources: ${name}: ${provider} push ${push.commit ?? ""} (${changes}): run ${accepted.run}`);
    return c.json({ source: name, commit: push.commit, changes, ...accepted }, 202);
  });
  return site;
}

/** The push's body, at most MAX_HOOK_BODY_BYTES: a longer one is refused (413) without reading the rest. */
async function readPushBody(request: Request): Promise<Uint8Array> {
  try {
    return (await readBody(request, { maxBytes: MAX_HOOK_BODY_BYTES, what: "the push body" })).bytes;
  } catch (error) {
    if (!(error instanceof BodyRefused)) throw error;
    throw new RefusalError(new AlmanacError("INVALID_ARGUMENT", `a push body is at most ${MAX_HOOK_BODY_BYTES} bytes; this one is longer`), { httpStatus: 413 });
  }
}

/**
 * Why a push to `ref` does not concern the source, when its URL names one
 * branch (GitHub's archive URLs end …/refs/heads/<branch>.tar.gz): a push
 * to another branch changes nothing it reads.
 */
function branchMismatch(source: Source, ref: string): string | null {
  const branch = /\/refs\/heads\/([^/]+?)(?:\.tar\.gz|\.tar|\.zip)?$/.exec(new URL(source.url).pathname)?.[1];
  if (!branch || !ref.startsWith("refs/heads/")) return null;
  const pushed = ref.slice("refs/heads/".length);
  return pushed === decodeURIComponent(branch) ? null : `a push to branch ${pushed.slice(0, 100)}; this source reads ${branch}`;
}
