// How every npm-run command ends when it fails.

/** A command given wrongly (a missing argument, an unknown option): the only failure that prints the usage. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/**
 * Runs a command's `main` with its arguments; on an error prints
 * "<name>: <message>" and a hint when the database lacks its tables, then
 * exits with status 1. The usage follows only a usage error (UsageError or
 * an option parseArgs refused): a run that failed on its input says why and
 * what to do, not how to call the command.
 *
 * @example runCli("keys", USAGE, main)
 */
export function runCli(name: string, usage: string, main: (argv: string[]) => Promise<void>): void {
  main(process.argv.slice(2)).catch((error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    // The deployed database only has the tables once the migrations were applied to it (local runs apply them first).
    const hint = message.includes("no such table") ? "\napply the migrations first: npx wrangler d1 migrations apply DB --remote" : "";
    console.error(`${name}: ${message}${hint}${isUsageError(error) ? `\n\n${usage}` : ""}`);
    process.exit(1);
  });
}

function isUsageError(error: unknown): boolean {
  if (error instanceof UsageError) return true;
  // node:util parseArgs: ERR_PARSE_ARGS_UNKNOWN_OPTION, ERR_PARSE_ARGS_INVALID_OPTION_VALUE, …
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("ERR_PARSE_ARGS_");
}
