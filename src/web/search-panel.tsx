import type { FC } from "hono/jsx";
import type { ChunkHit } from "../documents/document.ts";
import { sectionLink } from "../tools/search-documents.ts";
import type { SearchState } from "./panel-states.ts";
import { highlightedSnippet, sectionHeading } from "./snippet.ts";
import { SourceSelect } from "./source-select.tsx";
import { ErrorBox, readableTime } from "./ui.tsx";

/** The search panel: search_documents as a form, ranked hits with their sections, and paging. */
export const SearchPanel: FC<{ state?: SearchState; sources: string[] }> = ({ state, sources }) => {
  const input = state?.input;
  return (
    <section id="search" class="panel" aria-labelledby="search-title">
      <h3 id="search-title">Search the documentation</h3>
      <form action="/try/search#search" method="get" role="search" data-swap="search">
        <div class="row">
          <div class="grow">
            <label for="search-query">Words or a question</label>
            <input id="search-query" name="query" type="search" value={input?.query ?? ""} maxlength={500} required placeholder="e.g. rotate an API key" />
          </div>
          <SourceSelect id="search-source" sources={sources} selected={input?.dataSource ?? ""} />
          <button type="submit">Search</button>
        </div>
      </form>
      {state?.error && (
        <ErrorBox title="This search cannot be run">
          <p>{state.error.message}</p>
        </ErrorBox>
      )}
      {state?.result && input?.query !== undefined && <SearchResults state={state} query={input.query} />}
    </section>
  );
};

const SearchResults: FC<{ state: SearchState; query: string }> = ({ state, query }) => {
  const { input, result } = state;
  if (!result) return null;
  if (result.results.length === 0) {
    return (
      <p data-focus tabindex={-1}>
        Nothing matched “{query}”. Try other or fewer words (a product, API or error name works best), or all sources.
      </p>
    );
  }
  const first = input.start;
  const last = first + result.results.length - 1;
  const page = (fields: Record<string, string>) => `/try/search?${new URLSearchParams({ query, ...(input.dataSource && { dataSource: input.dataSource }), ...fields })}#search`;
  return (
    <div>
      <h4 data-focus tabindex={-1}>
        Results {first}–{last} for “{query}”
      </h4>
      <ol class="hits" start={first}>
        {result.results.map((hit) => (
          <SearchHit hit={hit} query={query} />
        ))}
      </ol>
      <nav aria-label="More results" class="row">
        {first > 1 && (
          <a href={page({})} data-swap="search">
            First results
          </a>
        )}
        {result.nextPageToken && (
          <a href={page({ pageToken: result.nextPageToken, start: String(last + 1) })} data-swap="search" rel="next">
            Next results
          </a>
        )}
      </nav>
    </div>
  );
};

const SearchHit: FC<{ hit: ChunkHit; query: string }> = ({ hit, query }) => {
  const section = sectionHeading(hit.content, hit.document.title);
  const link = sectionLink(hit.document.uri, hit.id);
  return (
    <li>
      <article>
        <h5 class="hit-title">
          <a href={link}>{hit.document.title}</a>
        </h5>
        {section && (
          <p class="meta section">
            Section: <a href={link}>{section}</a>
          </p>
        )}
        <p class="snippet">{highlightedSnippet(hit.content, query).map((part) => (part.hit ? <mark>{part.text}</mark> : part.text))}</p>
        <p class="meta">
          {hit.document.dataSource} · updated {readableTime(hit.document.updateTime)}
          {hit.relevanceScore === undefined ? "" : ` · relevance ${hit.relevanceScore.toFixed(2)}`} · <code class="parent">{hit.parent}</code>
        </p>
      </article>
    </li>
  );
};
