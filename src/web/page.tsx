import type { FC } from "hono/jsx";
import { raw } from "hono/html";
import { AskPanel } from "./ask-panel.tsx";
import { Connect } from "./connect.tsx";
import { ENHANCE_SCRIPT } from "./enhance.ts";
import { LibraryPanel } from "./library-panel.tsx";
import { type Endpoints, Overview } from "./overview.tsx";
import type { OverviewData } from "./overview-data.ts";
import type { PanelStates } from "./panel-states.ts";
import { SearchPanel } from "./search-panel.tsx";
import { STYLES } from "./styles.ts";

interface LandingPageProps {
  endpoints: Endpoints;
  overview: OverviewData;
  panels: PanelStates;
  /** Names of the tools ENABLED_TOOLS allows; a panel whose tool is off is not shown. */
  tools: readonly string[];
}

/** The landing page: what is here, how to connect, and the three "Try it" panels. */
export const LandingPage: FC<LandingPageProps> = ({ endpoints, overview, panels, tools }) => {
  const enabled = (name: string) => tools.includes(name);
  const sources = overview.corpus.ok ? overview.corpus.value.map((source) => source.dataSource) : [];
  const providers = overview.library.ok ? overview.library.value.map((provider) => provider.provider) : [];
  const libraryTools = enabled("query_library_search") || enabled("query_library_get");
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <title>Almanac MCP server</title>
        <style>{raw(STYLES)}</style>
      </head>
      <body>
        <a class="sr-only" href="#try">
          Skip to Try it
        </a>
        <header>
          <h1>Almanac</h1>
          <p>
            A documentation server for AI assistants and editors (an MCP server): it searches the documentation below, hands out whole pages,
            answers questions with citations, and serves vetted SQL query templates.
          </p>
          <nav class="jump" aria-label="On this page">
            <a href="#here">What is here</a>
            <a href="#connect">Connect a client</a>
            <a href="#try">Try it</a>
          </nav>
        </header>
        <main>
          <Overview data={overview} endpoints={endpoints} answerEnabled={enabled("answer_query")} />
          <Connect mcpUrl={endpoints.mcpUrl} />
          <section id="try" aria-labelledby="try-title">
            <h2 id="try-title">Try it</h2>
            <p>These forms call the same tools an MCP client calls, under the same keys and limits.</p>
            {enabled("answer_query") && <KeyBox />}
            {enabled("search_documents") && <SearchPanel state={panels.search} sources={sources} />}
            {enabled("answer_query") && <AskPanel state={panels.ask} sources={sources} />}
            {libraryTools && (
              <LibraryPanel
                state={panels.library}
                providers={providers}
                searchEnabled={enabled("query_library_search")}
                getEnabled={enabled("query_library_get")}
              />
            )}
          </section>
        </main>
        <footer>
          <p class="hint">
            Tools: {tools.map((name, index) => (
              <>
                {index > 0 && ", "}
                <code>{name}</code>
              </>
            ))}
            . Health: <a href="/healthz">/healthz</a>.
          </p>
        </footer>
        <div id="live" class="sr-only" aria-live="polite"></div>
        <script>{raw(ENHANCE_SCRIPT)}</script>
      </body>
    </html>
  );
};

/**
 * The optional API key, for the ask form (a form cannot send headers, so it
 * travels in the POST body) and, where the script runs, as a Bearer header
 * of the other panels. It is never written back into a page.
 */
const KeyBox: FC = () => (
  <div class="card" id="key-box">
    <div class="row">
      <div class="grow">
        <label for="api-key">API key (optional)</label>
        <input id="api-key" name="key" type="password" form="ask-form" autocomplete="off" spellcheck={false} aria-describedby="api-key-hint" />
      </div>
      <button type="submit" class="quiet" form="ask-form" formaction="/try/allowance#allowance" formmethod="post" formnovalidate data-swap="allowance">
        Show this key's allowance
      </button>
    </div>
    <p class="hint" id="api-key-hint">
      Without a key you are on the public tier. A key is sent only with your request and is never stored or shown back.
    </p>
  </div>
);
