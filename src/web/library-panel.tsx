import type { FC } from "hono/jsx";
import type { ParamDeclaration } from "../library/entry.ts";
import type { LibraryEntryView } from "../library/get.ts";
import type { LibrarySearchResult } from "../library/search.ts";
import type { LibraryState } from "./panel-states.ts";
import { type LibraryInput, PARAM_FIELD_PREFIX } from "./try-request.ts";
import { CopyableSnippet, ErrorBox } from "./ui.tsx";

/**
 * The query-library panel: query_library_search as a form, an entry opened
 * with query_library_get, and a form generated from the entry's parameter
 * declarations that renders the SQL or shows what to fix beside each field.
 */
export const LibraryPanel: FC<{ state?: LibraryState; providers: string[]; searchEnabled: boolean; getEnabled: boolean }> = ({
  state,
  providers,
  searchEnabled,
  getEnabled,
}) => {
  const input = state?.input;
  return (
    <section id="library" class="panel" aria-labelledby="library-title">
      <h3 id="library-title">Query library</h3>
      {searchEnabled && (
        <form action="/try/library#library" method="get" data-swap="library">
          <div class="row">
            <div class="grow">
              <label for="library-intent">What do you want to query?</label>
              <input id="library-intent" name="intent" type="search" value={input?.intent ?? ""} maxlength={500} required placeholder="e.g. list repositories in a github organization" />
            </div>
            {providers.length > 1 && (
              <div class="fit">
                <label for="library-provider">Provider</label>
                <select id="library-provider" name="provider">
                  <option value="">All providers</option>
                  {providers.map((provider) => (
                    <option value={provider} selected={provider === input?.provider}>
                      {provider}
                    </option>
                  ))}
                </select>
              </div>
            )}
            <button type="submit">Find queries</button>
          </div>
          <label class="inline">
            <input type="checkbox" name="include_mutations" value="true" checked={input?.includeMutations ?? false} /> Include queries that change resources
          </label>
        </form>
      )}
      {state?.error && (
        <ErrorBox title="The query library cannot answer this">
          <p>{state.error.message}</p>
        </ErrorBox>
      )}
      {state?.search && input && <LibraryHits result={state.search} input={input} getEnabled={getEnabled} />}
      {state?.entry && input && <LibraryEntry entry={state.entry} input={input} />}
    </section>
  );
};

/** The address that keeps the search and opens (or renders) an entry. */
function libraryHref(input: LibraryInput, fields: Record<string, string>): string {
  const search: Record<string, string> = {};
  if (input.intent) search.intent = input.intent;
  if (input.provider) search.provider = input.provider;
  if (input.includeMutations) search.include_mutations = "true";
  return `/try/library?${new URLSearchParams({ ...search, ...fields })}#library`;
}

const LibraryHits: FC<{ result: LibrarySearchResult; input: LibraryInput; getEnabled: boolean }> = ({ result, input, getEnabled }) => (
  <div>
    <h4 data-focus={input.id === undefined || undefined} tabindex={-1}>
      {result.hits.length === 0 ? "No queries found" : `Queries for “${input.intent}”`}
    </h4>
    {result.hits.length > 0 && (
      <ol class="hits">
        {result.hits.map((hit) => (
          <li>
            {getEnabled ? (
              <a href={libraryHref(input, { id: hit.id })} data-swap="library" aria-current={hit.id === input.id ? "true" : undefined}>
                {hit.title}
              </a>
            ) : (
              hit.title
            )}
            {hit.mutation && <span class="badge">changes resources</span>}
            <p class="meta">
              <code>{hit.id}</code> · score {hit.score.toFixed(1)}
              {hit.required_params.length > 0 && <> · needs {hit.required_params.join(", ")}</>}
            </p>
          </li>
        ))}
      </ol>
    )}
    {result.miss && result.guidance && <p class="hint">{result.guidance}</p>}
  </div>
);

/** Which declared params an error names: `param "region" must …` and the missing ones. */
function fieldErrors(entry: LibraryEntryView): Map<string, string[]> {
  const byField = new Map<string, string[]>();
  const add = (name: string, message: string) => byField.set(name, [...(byField.get(name) ?? []), message]);
  for (const name of entry.missing_params) add(name, "Required: enter a value.");
  for (const error of entry.errors) {
    const named = /^param "([^"]+)"/.exec(error)?.[1];
    if (named) add(named, error);
  }
  return byField;
}

const LibraryEntry: FC<{ entry: LibraryEntryView; input: LibraryInput }> = ({ entry, input }) => {
  const submitted = new Map(input.params);
  const errors = entry.rendered ? fieldErrors(entry) : new Map<string, string[]>();
  return (
    <article class="entry" aria-labelledby="entry-title">
      <h4 id="entry-title" data-focus={!entry.rendered || undefined} tabindex={-1}>
        {entry.title}
        {entry.mutation && <span class="badge">changes resources</span>}
      </h4>
      <p>{entry.description}</p>
      <p class="meta">
        <code>{entry.id}</code> · run it with <code>{entry.next_tool}</code> on a StackQL server · <a href={entry.doc_url}>documentation</a>
        {entry.stale && " · served from the bundled snapshot"}
      </p>
      {entry.params.length === 0 ? (
        <p>This query takes no parameters: its template is the SQL to run.</p>
      ) : (
        <form action="/try/library#library" method="get" data-swap="library" novalidate>
          {input.intent && <input type="hidden" name="intent" value={input.intent} />}
          {input.provider && <input type="hidden" name="provider" value={input.provider} />}
          {input.includeMutations && <input type="hidden" name="include_mutations" value="true" />}
          <input type="hidden" name="id" value={entry.id} />
          <fieldset>
            <legend>Parameters</legend>
            {entry.params.map((param) => (
              <ParamField param={param} value={submitted.get(param.name) ?? ""} errors={errors.get(param.name) ?? []} />
            ))}
          </fieldset>
          <button type="submit">Render SQL</button>
        </form>
      )}
      {entry.rendered && <RenderOutcome entry={entry} />}
      {entry.template !== undefined && (
        <CopyableSnippet id="entry-template" title="Template" snippet={{ language: "text", text: entry.template }} copyLabel="Copy the SQL template" />
      )}
      {entry.notes && <p class="hint">{entry.notes}</p>}
    </article>
  );
};

const RenderOutcome: FC<{ entry: LibraryEntryView }> = ({ entry }) =>
  entry.valid && entry.sql !== undefined ? (
    <div>
      <p class="up" data-focus tabindex={-1}>
        Valid: ready to run with {entry.next_tool}.
      </p>
      <CopyableSnippet id="rendered-sql" title="Rendered SQL" snippet={{ language: "text", text: entry.sql }} copyLabel="Copy the rendered SQL" />
    </div>
  ) : (
    <ErrorBox title="The SQL was not rendered: fix these first">
      <ul class="render-errors">
        {entry.errors.map((error) => (
          <li>{error}</li>
        ))}
      </ul>
    </ErrorBox>
  );

/** One generated field: enum and boolean params are choices, the rest text; an empty field means "use the default". */
const ParamField: FC<{ param: ParamDeclaration; value: string; errors: string[] }> = ({ param, value, errors }) => {
  const id = `param-${param.name}`;
  const name = `${PARAM_FIELD_PREFIX}${param.name}`;
  const describedBy = [`${id}-hint`, ...(errors.length > 0 ? [`${id}-error`] : [])].join(" ");
  const hint = [
    /[.!?]$/.test(param.description) ? param.description : `${param.description}.`,
    param.required && param.default === undefined ? "Required." : `Optional${param.default !== undefined ? `; default ${String(param.default)}` : ""}.`,
    `Type ${param.type}${param.pattern ? `, matching ${param.pattern}` : ""}.`,
  ].join(" ");
  const choices = param.type === "enum" ? (param.enum ?? []) : param.type === "boolean" ? ["true", "false"] : null;
  const common = { id, name, "aria-describedby": describedBy, "aria-invalid": errors.length > 0 ? "true" : undefined, "aria-required": param.required ? "true" : undefined };
  return (
    <div class="param">
      <label for={id}>
        {param.name}
        {param.required && param.default === undefined && " (required)"}
      </label>
      {choices ? (
        <select {...common}>
          <option value="">{param.default !== undefined ? `Default (${String(param.default)})` : "Choose…"}</option>
          {choices.map((choice) => (
            <option value={choice} selected={choice === value}>
              {choice}
            </option>
          ))}
        </select>
      ) : (
        <input {...common} type="text" value={value} placeholder={param.example !== undefined ? String(param.example) : undefined} autocomplete="off" spellcheck={false} />
      )}
      <p class="hint" id={`${id}-hint`}>
        {hint}
      </p>
      {errors.length > 0 && (
        <p class="field-error" id={`${id}-error`}>
          {errors.join(" ")}
        </p>
      )}
    </div>
  );
};
