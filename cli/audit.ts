// npm run audit -- [list]|prune: the audit log of restricted documentation (src/documents/access/audit.ts),
// from the local D1 database that `npm start` serves, or the deployed one with --remote.
import { parseArgs } from "node:util";
import { auditRetentionDays, pruneAuditLog, readAuditLog, type AuditRecord } from "../src/documents/access/audit.ts";
import { withEnv } from "./env.ts";
import { DEFAULT_STATE_DIR } from "./local-env.ts";
import { runCli } from "./run-cli.ts";

const USAGE = `usage:
  npm run audit -- [list] [--since <RFC 3339 time | 7d | 12h>] [--key <key id>] [--data-source <host>] [--limit N] [--json] [--remote]
  npm run audit -- prune [--days N] [--remote]

list: who read restricted documentation, newest first (default: the last 100 rows). Each row is
one request: its time, the key id and the audiences that opened the sources, the door (mcp, rest,
web, llms.txt, markdown, sources, healthz), the tool or route, the restricted data sources touched
and the document names returned from them. No page content, query or filter is ever logged.

prune: deletes rows older than --days (default AUDIT_RETENTION_DAYS, else 90); the deployed
Worker's cron does the same every 15 minutes.`;

/** Rows printed when --limit is not given. */
const DEFAULT_LIMIT = 100;

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      since: { type: "string" },
      key: { type: "string" },
      "data-source": { type: "string" },
      limit: { type: "string" },
      days: { type: "string" },
      json: { type: "boolean", default: false },
      remote: { type: "boolean", default: false },
      "persist-to": { type: "string", default: DEFAULT_STATE_DIR },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) return console.log(USAGE);
  const [command = "list", ...extra] = positionals;
  if (extra.length > 0) throw new Error(`${command} takes no more arguments (got ${extra.join(" ")})`);
  const env = { remote: values.remote, persistTo: values["persist-to"] };
  if (command === "prune") {
    const removed = await withEnv(env, (e) => {
      const days = values.days === undefined ? auditRetentionDays(e) : wholeNumber("--days", values.days);
      return pruneAuditLog(e.DB, days).then((count) => ({ count, days }));
    });
    return console.log(`deleted ${removed.count} audit rows older than ${removed.days} days`);
  }
  if (command !== "list") throw new Error(`unknown command "${command}"; expected list or prune`);
  const since = values.since === undefined ? undefined : sinceTime(values.since);
  const limit = values.limit === undefined ? DEFAULT_LIMIT : wholeNumber("--limit", values.limit);
  const rows = await withEnv(env, (e) => readAuditLog(e.DB, { since, keyId: values.key, dataSource: values["data-source"], limit }));
  if (values.json) {
    for (const row of rows) console.log(JSON.stringify(row));
    return;
  }
  if (rows.length === 0) return console.log("no restricted documentation was read in that span");
  for (const row of rows) console.log(describeRow(row));
}

/** One row as a line a person scans: time, key, audiences, door and tool, then what was returned. */
function describeRow(row: AuditRecord): string {
  const returned = row.documents.length > 0 ? `${row.documents.length} documents: ${row.documents.join(", ")}` : "counts only";
  return `${row.time}  ${row.keyId ?? "anonymous"}  audiences ${row.audiences.join(",")}  ${row.door} ${row.tool}  ${row.dataSources.join(",")}  ${returned}`;
}

/** "7d", "12h" or an RFC 3339 time, as the ISO time rows are compared with. */
function sinceTime(value: string): string {
  const span = /^(\d+)([dh])$/.exec(value.trim());
  if (span) return new Date(Date.now() - Number(span[1]) * (span[2] === "d" ? 86_400_000 : 3_600_000)).toISOString();
  const time = new Date(value);
  if (Number.isNaN(time.getTime())) throw new Error(`--since takes an RFC 3339 time or a span such as 7d or 12h, not "${value}"`);
  return time.toISOString();
}

function wholeNumber(name: string, value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new Error(`${name} must be a whole number ≥ 1, not "${value}"`);
  return number;
}

runCli("audit", USAGE, main);
