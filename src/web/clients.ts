// Copy-paste set-up for each popular MCP client, with the server's own URL
// filled in. The texts are the ones corpus/docs/clients/*.md show (a test
// holds the two together), so the page and the documentation never disagree.

/** One snippet: what to paste, and in which language it is written. */
export interface Snippet {
  language: "sh" | "json" | "text";
  text: string;
}

/** How to connect one client: without a key, and with each of the two key headers. */
interface ClientSetup {
  /** A short id for element ids: `cursor`, `claude-code`. */
  id: string;
  name: string;
  /** Where the snippet goes, for a person who has never configured the client. */
  where: string;
  /** The client's page in the default corpus, under https://almanac.dev/docs/. */
  docPath: string;
  /** Words that find that page with search_documents. */
  guideQuery: string;
  plain: Snippet;
  bearer: Snippet;
  googApiKey: Snippet;
}

/** What the snippets show in place of a key: a person replaces it with the key `npm run keys -- create` printed. */
const KEY_PLACEHOLDER = "YOUR_API_KEY";

/** A JSON string literal, so a URL is written into JSON snippets correctly whatever it holds. */
const q = (text: string) => JSON.stringify(text);

/**
 * Every client's set-up for an MCP endpoint URL (`https://host/mcp`), in the
 * order the page shows them.
 *
 * @example clientSetups("http://localhost:8787/mcp")[0].plain.text // "claude mcp add --transport http almanac http://localhost:8787/mcp"
 */
export function clientSetups(mcpUrl: string): ClientSetup[] {
  return [
    {
      id: "claude-code",
      name: "Claude Code",
      where: "Run in a terminal; the server is then available in every Claude Code session of this project.",
      docPath: "clients/claude-code",
      guideQuery: "connect Claude Code",
      plain: sh(`claude mcp add --transport http almanac ${mcpUrl}`),
      bearer: sh(`claude mcp add --transport http almanac ${mcpUrl} \\\n  --header "Authorization: Bearer ${KEY_PLACEHOLDER}"`),
      googApiKey: sh(`claude mcp add --transport http almanac ${mcpUrl} \\\n  --header "X-Goog-Api-Key: ${KEY_PLACEHOLDER}"`),
    },
    {
      id: "claude-desktop",
      name: "Claude Desktop",
      where:
        "Settings → Developer → Edit Config opens claude_desktop_config.json; add the entry under mcpServers and restart Claude Desktop. It reaches the server through the mcp-remote bridge, so Node.js (npx) must be installed.",
      docPath: "clients/claude-desktop",
      guideQuery: "connect Claude Desktop",
      plain: json(`{
  "mcpServers": {
    "almanac": {
      "command": "npx",
      "args": ["-y", "mcp-remote", ${q(mcpUrl)}]
    }
  }
}`),
      bearer: json(`{
  "mcpServers": {
    "almanac": {
      "command": "npx",
      "args": [
        "-y",
        "mcp-remote",
        ${q(mcpUrl)},
        "--header",
        "Authorization:\${ALMANAC_AUTH}"
      ],
      "env": {
        "ALMANAC_AUTH": "Bearer ${KEY_PLACEHOLDER}"
      }
    }
  }
}`),
      googApiKey: json(`{
  "mcpServers": {
    "almanac": {
      "command": "npx",
      "args": [
        "-y",
        "mcp-remote",
        ${q(mcpUrl)},
        "--header",
        "X-Goog-Api-Key:\${ALMANAC_KEY}"
      ],
      "env": {
        "ALMANAC_KEY": "${KEY_PLACEHOLDER}"
      }
    }
  }
}`),
    },
    {
      id: "cursor",
      name: "Cursor",
      where: "~/.cursor/mcp.json for every project, or .cursor/mcp.json in one project (Cursor Settings → MCP → Add new global MCP server opens it).",
      docPath: "clients/cursor",
      guideQuery: "connect Cursor",
      plain: json(`{
  "mcpServers": {
    "almanac": {
      "url": ${q(mcpUrl)}
    }
  }
}`),
      bearer: json(`{
  "mcpServers": {
    "almanac": {
      "url": ${q(mcpUrl)},
      "headers": {
        "Authorization": "Bearer ${KEY_PLACEHOLDER}"
      }
    }
  }
}`),
      googApiKey: json(`{
  "mcpServers": {
    "almanac": {
      "url": ${q(mcpUrl)},
      "headers": {
        "X-Goog-Api-Key": "${KEY_PLACEHOLDER}"
      }
    }
  }
}`),
    },
    {
      id: "vs-code",
      name: "VS Code",
      where:
        ".vscode/mcp.json in the workspace (MCP: Open User Configuration for every workspace). VS Code asks for the key once and keeps it in its secret storage.",
      docPath: "clients/vs-code",
      guideQuery: "connect VS Code",
      plain: json(`{
  "servers": {
    "almanac": {
      "type": "http",
      "url": ${q(mcpUrl)}
    }
  }
}`),
      bearer: json(vsCodeWithKey(mcpUrl, "Authorization", "Bearer ${input:almanac-api-key}")),
      googApiKey: json(vsCodeWithKey(mcpUrl, "X-Goog-Api-Key", "${input:almanac-api-key}")),
    },
    {
      id: "windsurf",
      name: "Windsurf",
      where:
        "~/.codeium/windsurf/mcp_config.json (Cascade → MCP → Configure), then Refresh. Windsurf reads ALMANAC_API_KEY from the environment it was started in.",
      docPath: "clients/windsurf",
      guideQuery: "connect Windsurf",
      plain: json(`{
  "mcpServers": {
    "almanac": {
      "serverUrl": ${q(mcpUrl)}
    }
  }
}`),
      bearer: json(windsurfWithKey(mcpUrl, "Authorization", "Bearer ${env:ALMANAC_API_KEY}")),
      googApiKey: json(windsurfWithKey(mcpUrl, "X-Goog-Api-Key", "${env:ALMANAC_API_KEY}")),
    },
    {
      id: "mcp-inspector",
      name: "MCP Inspector",
      where:
        "Interactive: run npx @modelcontextprotocol/inspector, choose Transport Type Streamable HTTP, enter the URL and Connect (keys go in Authentication → custom headers). From a terminal, the command below lists the tools.",
      docPath: "clients/mcp-inspector",
      guideQuery: "MCP Inspector",
      plain: sh(inspectorCli(mcpUrl)),
      bearer: sh(`${inspectorCli(mcpUrl)} \\\n  --header "Authorization: Bearer ${KEY_PLACEHOLDER}"`),
      googApiKey: sh(`${inspectorCli(mcpUrl)} \\\n  --header "X-Goog-Api-Key: ${KEY_PLACEHOLDER}"`),
    },
    {
      id: "generic",
      name: "Any other client",
      where:
        "Any MCP client that speaks the Streamable HTTP transport: give it this URL. To send a key, add one of the two headers below to every request.",
      docPath: "clients/index",
      guideQuery: "connecting MCP clients",
      plain: text(mcpUrl),
      bearer: text(`Authorization: Bearer ${KEY_PLACEHOLDER}`),
      googApiKey: text(`X-Goog-Api-Key: ${KEY_PLACEHOLDER}`),
    },
  ];
}

function sh(text: string): Snippet {
  return { language: "sh", text };
}

function json(text: string): Snippet {
  return { language: "json", text };
}

function text(text: string): Snippet {
  return { language: "text", text };
}

function inspectorCli(mcpUrl: string): string {
  return `npx @modelcontextprotocol/inspector --cli ${mcpUrl} \\\n  --transport http --method tools/list`;
}

function vsCodeWithKey(mcpUrl: string, header: string, value: string): string {
  return `{
  "inputs": [
    {
      "type": "promptString",
      "id": "almanac-api-key",
      "description": "Almanac API key",
      "password": true
    }
  ],
  "servers": {
    "almanac": {
      "type": "http",
      "url": ${q(mcpUrl)},
      "headers": {
        ${q(header)}: ${q(value)}
      }
    }
  }
}`;
}

function windsurfWithKey(mcpUrl: string, header: string, value: string): string {
  return `{
  "mcpServers": {
    "almanac": {
      "serverUrl": ${q(mcpUrl)},
      "headers": {
        ${q(header)}: ${q(value)}
      }
    }
  }
}`;
}
