/**
 * The MCP protocol revisions /mcp serves (src/mcp/serve.ts), as the landing
 * page and corpus/docs/protocol-revisions.md state them: the stateless
 * revision in the Worker, the handshake revisions in a session. A test
 * negotiates each one against the real endpoint, so this list cannot claim
 * a revision the server does not speak.
 */
export const SERVED_REVISIONS = {
  stateless: ["2026-07-28"],
  sessions: ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"],
} as const;
