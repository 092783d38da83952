// "What is here": the corpus, the query library, the endpoints and the
// revisions they speak, and the visitor's own answer_query allowance.
import type { FC } from "hono/jsx";
import type { Caller } from "../auth/caller.ts";
import type { DataSourceStats } from "../documents/read/corpus-stats.ts";
import type { ProviderStats } from "../library/library-stats.ts";
import { formatDuration } from "../quota/gate.ts";
import type { AnswerAllowance } from "../quota/gate.ts";
import type { CallerAllowance, OverviewData, Outcome, SourceFreshness } from "./overview-data.ts";
import { SERVED_REVISIONS } from "./protocol-revisions.ts";
import { CopyableSnippet, count, readableTime } from "./ui.tsx";

export interface Endpoints {
  /** The server's own origin, as the page was opened. */
  origin: string;
  mcpUrl: string;
  /** The REST facade's base URL; absent when the server has none. */
  restUrl?: string;
}

export const Overview: FC<{ data: OverviewData; endpoints: Endpoints; answerEnabled: boolean }> = ({ data, endpoints, answerEnabled }) => (
  <section id="here" aria-labelledby="here-title">
    <h2 id="here-title">What is here</h2>
    <div class="grid">
      <div class="card">
        <h3>Documentation</h3>
        <CorpusTable corpus={data.corpus} />
        {/* Said to every caller alike, so it tells nobody whether private sources exist. */}
        <p class="hint">
          Private documentation: a data source may be restricted to API keys of named audiences; with such a key (header or <code>?key=</code>), this page and every
          door show it too. See <a href="/documents/almanac.dev/docs/private-documentation.md">Private documentation</a>.
        </p>
      </div>
      <FreshnessCard sources={data.sources} />
      <div class="card">
        <h3>Query library</h3>
        <LibraryTable library={data.library} />
      </div>
      <div class="card">
        <h3>Endpoints</h3>
        <CopyableSnippet id="mcp-url" title="MCP (Streamable HTTP)" snippet={{ language: "text", text: endpoints.mcpUrl }} copyLabel="Copy the MCP URL" />
        {endpoints.restUrl && (
          <>
            <CopyableSnippet id="rest-url" title="REST (Google Developer Knowledge API v1)" snippet={{ language: "text", text: endpoints.restUrl }} copyLabel="Copy the REST base URL" />
            <p class="hint">
              Methods <code>documents:searchDocumentChunks</code>, <code>documents/{"{name}"}</code>, <code>documents:batchGet</code> and{" "}
              <code>POST /v1:answerQuery</code>; Google's own client works with <code>rootUrl: "{endpoints.origin}/"</code>. Try:
            </p>
            <CopyableSnippet
              id="rest-example"
              title="A search over REST"
              snippet={{ language: "sh", text: `curl '${endpoints.restUrl}/documents:searchDocumentChunks?query=getting+started'` }}
              copyLabel="Copy the REST example"
            />
          </>
        )}
        <dl>
          <dt>MCP protocol revisions</dt>
          <dd>
            {SERVED_REVISIONS.stateless.join(", ")} (stateless) and {SERVED_REVISIONS.sessions.join(", ")} (sessions); clients need no setting.
          </dd>
          <dt>Health</dt>
          <dd>
            <a href="/healthz">/healthz</a>
          </dd>
        </dl>
      </div>
      {answerEnabled && <AllowanceCard allowance={data.allowance} />}
    </div>
  </section>
);

const Unavailable: FC<{ message: string }> = ({ message }) => <p class="hint">Not available right now: {message}</p>;

const CorpusTable: FC<{ corpus: Outcome<DataSourceStats[]> }> = ({ corpus }) => {
  if (!corpus.ok) return <Unavailable message={corpus.message} />;
  if (corpus.value.length === 0) return <p>No documentation is loaded yet.</p>;
  const pages = corpus.value.reduce((sum, source) => sum + source.pages, 0);
  return (
    <div class="scroll">
      <table>
        <caption class="sr-only">Pages, sections and last update per data source</caption>
        <thead>
          <tr>
            <th scope="col">Source</th>
            <th scope="col" class="n">Pages</th>
            <th scope="col" class="n">Sections</th>
            <th scope="col">Last update (UTC)</th>
          </tr>
        </thead>
        <tbody>
          {corpus.value.map((source) => (
            <tr>
              <th scope="row">
                {source.dataSource}
                {source.versions ? (
                  <small class="versions">
                    {" "}
                    versions:{" "}
                    {source.versions.map((version, index) => (
                      <>
                        {index > 0 ? ", " : ""}
                        {version.current ? <strong>{version.label} (current)</strong> : version.label}
                      </>
                    ))}
                  </small>
                ) : null}
              </th>
              <td class="n">{count(source.pages)}</td>
              <td class="n">{count(source.sections)}</td>
              <td>
                <time datetime={source.lastUpdate}>{source.lastUpdate.slice(0, 10)}</time>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p class="up">Up: serving {count(pages)} {pages === 1 ? "page" : "pages"}.</p>
    </div>
  );
};

/**
 * Each source `npm run sources` keeps: when it was last read successfully,
 * when it is due, and how its last run went. A deployment without any shows
 * no card; data sources without a source row are only in the table above.
 */
const FreshnessCard: FC<{ sources: Outcome<SourceFreshness[]> }> = ({ sources }) => {
  if (sources.ok && sources.value.length === 0) return null;
  return (
    <div class="card" id="freshness">
      <h3>Refreshed sources</h3>
      {sources.ok ? (
        <>
          {sources.value.map((source) => (
            <SourceFacts source={source} />
          ))}
          <p class="hint">Read again by this server on a schedule, and at once when a source's origin pushes (a webhook); other data sources change only when someone ingests them.</p>
        </>
      ) : (
        <Unavailable message={sources.message} />
      )}
    </div>
  );
};

const SourceFacts: FC<{ source: SourceFreshness }> = ({ source }) => {
  const run = source.lastRun;
  const id = `fresh-${source.name}`;
  return (
    <section class="source" aria-labelledby={id} data-source={source.name}>
      <h4 id={id}>
        {source.name} <span class="badge">{source.kind}</span>
      </h4>
      <dl class="facts">
        <dt>Host</dt>
        <dd>{source.host}</dd>
        <dt>Pages</dt>
        <dd>{source.pageCount === null ? "unknown" : count(source.pageCount)}</dd>
        <dt>Last success</dt>
        <dd>{source.lastSuccessTime ? <Time value={source.lastSuccessTime} /> : "never"}</dd>
        <dt>Next due</dt>
        <dd>{source.nextDue ? <Time value={source.nextDue} /> : "not set"}</dd>
        <dt>Last run</dt>
        <dd data-outcome={run?.outcome}>
          {!run ? (
            "none yet"
          ) : run.outcome === "running" ? (
            <>
              <strong>running</strong>
              {run.startTime && (
                <>
                  {" "}since <Time value={run.startTime} />
                </>
              )}
            </>
          ) : (
            <>
              <strong class={run.outcome === "failed" ? "bad" : "good"}>{run.outcome}</strong>
              {run.endTime && (
                <>
                  {" "}at <Time value={run.endTime} />
                </>
              )}
            </>
          )}
        </dd>
        {run && run.outcome !== "running" && (
          <>
            <dt>Changes</dt>
            <dd class="counts">
              {count(run.added)} added, {count(run.updated)} updated, {count(run.unchanged)} unchanged, {count(run.removed)} removed, {count(run.skipped)} skipped
              {run.pagesRead !== null && (
                <>
                  ; {count(run.pagesRead)} {run.pagesRead === 1 ? "page" : "pages"} read, {count(run.pagesWritten ?? 0)} written
                </>
              )}
            </dd>
          </>
        )}
        {source.lastPush && (
          <>
            <dt>Last push</dt>
            <dd class="push">
              {source.lastPush.time && <Time value={source.lastPush.time} />}
              {source.lastPush.commit && <code> {source.lastPush.commit.slice(0, 12)}</code>}
              {run?.pushToPublishedMs != null && <> — published {(run.pushToPublishedMs / 1000).toFixed(1)} s after the push</>}
            </dd>
          </>
        )}
        {run?.error && (
          <>
            <dt>Error</dt>
            <dd class="field-error">{run.error}</dd>
          </>
        )}
      </dl>
    </section>
  );
};

/** An RFC 3339 time for machines, its UTC minute for people. */
const Time: FC<{ value: string }> = ({ value }) => <time datetime={value}>{readableTime(value)}</time>;

const LibraryTable: FC<{ library: Outcome<ProviderStats[]> }> = ({ library }) => {
  if (!library.ok) return <Unavailable message={library.message} />;
  if (library.value.length === 0) return <p>No query-library entries are loaded yet.</p>;
  return (
    <div class="scroll">
      <table>
        <caption class="sr-only">Query-library entries per provider</caption>
        <thead>
          <tr>
            <th scope="col">Provider</th>
            <th scope="col" class="n">Entries</th>
            <th scope="col" class="n">Of which change resources</th>
          </tr>
        </thead>
        <tbody>
          {library.value.map((provider) => (
            <tr>
              <th scope="row">{provider.provider}</th>
              <td class="n">{count(provider.entries)}</td>
              <td class="n">{count(provider.mutations)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p class="hint">Parameterised StackQL queries, validated before they are handed out; Almanac never runs them.</p>
    </div>
  );
};

/**
 * The caller's answer_query allowance per window, from the same counter the
 * 429 reads. Everything else the server does is free, and says so.
 */
const AllowanceCard: FC<{ allowance: Outcome<CallerAllowance> }> = ({ allowance }) => (
  <div class="card" id="allowance">
    <h3 data-focus tabindex={-1}>
      Your answer_query allowance
    </h3>
    {allowance.ok ? (
      <>
        <p>{who(allowance.value.caller)}</p>
        <AllowanceTable allowance={allowance.value.allowance} />
        <p class="hint">Only answers count; search, pages and the query library are free.</p>
      </>
    ) : (
      <p class="field-error">{allowance.message}</p>
    )}
  </div>
);

function who(caller: Caller): string {
  if (caller.kind === "key") return `API key "${caller.label}" (${caller.keyId}, tier ${caller.tier}).`;
  return "Anonymous (public tier), counted for your IP address. An API key raises the limits: enter it under Try it.";
}

const AllowanceTable: FC<{ allowance: AnswerAllowance }> = ({ allowance }) => (
  <div class="scroll">
    <table>
      <thead>
        <tr>
          <th scope="col">Window</th>
          <th scope="col" class="n">Remaining</th>
          <th scope="col" class="n">Limit</th>
          <th scope="col">Resets</th>
        </tr>
      </thead>
      <tbody>
        {allowance.windows.map((window) => (
          <tr data-window={window.window}>
            <th scope="row">{window.window === "minute" ? "This minute" : "Today (UTC)"}</th>
            <td class="n">{count(window.remaining)}</td>
            <td class="n">{count(window.limit)}</td>
            <td>in {formatDuration(Math.max(0, Math.ceil((window.resetAt - allowance.now) / 1000)))}</td>
          </tr>
        ))}
      </tbody>
    </table>
  </div>
);
