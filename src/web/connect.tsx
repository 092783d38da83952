import type { FC } from "hono/jsx";
import { clientSetups } from "./clients.ts";
import { CopyableSnippet } from "./ui.tsx";

/** "Connect": one disclosure per client, each with the snippet without a key and with either key header. */
export const Connect: FC<{ mcpUrl: string }> = ({ mcpUrl }) => (
  <section id="connect" aria-labelledby="connect-title">
    <h2 id="connect-title">Connect a client</h2>
    <p>
      MCP (the Model Context Protocol) is how AI assistants and editors call tools. Add this server to yours with the snippet for it; the URL is
      this server's own. Without a key you use the public tier; an API key (from the operator, <code>npm run keys -- create</code>) raises the{" "}
      <code>answer_query</code> limits and goes in a header, <code>Authorization: Bearer</code> or <code>X-Goog-Api-Key</code>.
    </p>
    {clientSetups(mcpUrl).map((client, index) => (
      <details class="client" id={`client-${client.id}`} open={index === 0}>
        <summary>{client.name}</summary>
        <p class="hint">{client.where}</p>
        <CopyableSnippet id={`snippet-${client.id}`} title="Without a key" snippet={client.plain} copyLabel={`Copy the ${client.name} snippet`} />
        <CopyableSnippet
          id={`snippet-${client.id}-bearer`}
          title="With an API key: Authorization: Bearer"
          snippet={client.bearer}
          copyLabel={`Copy the ${client.name} snippet with an Authorization: Bearer key`}
        />
        <CopyableSnippet
          id={`snippet-${client.id}-goog`}
          title="With an API key: X-Goog-Api-Key"
          snippet={client.googApiKey}
          copyLabel={`Copy the ${client.name} snippet with an X-Goog-Api-Key key`}
        />
        <p class="hint">
          Replace <code>YOUR_API_KEY</code> with your key. The whole guide is in this server's documentation:{" "}
          <a href={`/try/search?query=${encodeURIComponent(client.guideQuery)}#search`} data-swap="search">
            search for “{client.guideQuery}”
          </a>
          .
        </p>
      </details>
    ))}
  </section>
);
