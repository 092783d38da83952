import { html } from "hono/html";
import type { AnyToolDefinition } from "./tools/define.ts";

/** What a person sees opening the server in a browser: what it is, that it is up, how to connect. */
export function landingPage(origin: string, documentCount: number, tools: readonly AnyToolDefinition[]) {
  const endpoint = `${origin}/mcp`;
  const config = JSON.stringify({ mcpServers: { almanac: { url: endpoint } } }, null, 2);
  return html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Almanac MCP server</title>
    <style>
      body { font: 16px/1.5 system-ui, sans-serif; max-width: 44rem; margin: 2rem auto; padding: 0 1rem; color: #1f2328; }
      code, pre { font: 14px ui-monospace, monospace; background: #f6f8fa; border-radius: 6px; }
      pre { padding: 1rem; overflow-x: auto; }
      .up { color: #1a7f37; font-weight: 600; }
    </style>
  </head>
  <body>
    <h1>Almanac</h1>
    <p>A developer-knowledge MCP server: documentation search, whole pages, grounded answers with citations.</p>
    <p class="up">Up: serving ${documentCount} documents.</p>
    <h2>Connect</h2>
    <p>MCP endpoint (Streamable HTTP): <code>${endpoint}</code></p>
    <pre>${config}</pre>
    <p>Claude Code: <code>claude mcp add --transport http almanac ${endpoint}</code></p>
    <h2>REST API</h2>
    <p>Google's Developer Knowledge API v1 at <code>${origin}/v1/</code>: <code>documents:searchDocumentChunks</code>,
      <code>documents/{name}</code>, <code>documents:batchGet</code> and <code>POST /v1:answerQuery</code>.
      Google's client works with <code>rootUrl: "${origin}/"</code>.</p>
    <p class="rest-example"><code>curl '${origin}/v1/documents:searchDocumentChunks?query=getting+started'</code></p>
    <h2>Tools</h2>
    <ul>
      ${tools.map((tool) => html`<li><code>${tool.name}</code>: ${tool.title}</li>`)}
    </ul>
    <p>Health: <a href="/healthz">/healthz</a></p>
  </body>
</html>`;
}
