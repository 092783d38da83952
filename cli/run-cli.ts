// How every npm-run command ends when it fails.

/**
 * Runs a command's `main` with its arguments; on an error prints
 * "<name>: <message>", a hint when the database lacks its tables, and the
 * usage, then exits with status 1.
 *
 * @example runCli("keys", USAGE, main)
 */
export function runCli(name: string, usage: string, main: (argv: string[]) => Promise<void>): void {
  main(process.argv.slice(2)).catch((error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    // The deployed database only has the tables once the migrations were applied to it (local runs apply them first).
    const hint = message.includes("no such table") ? "\napply the migrations first: npx wrangler d1 migrations apply DB --remote" : "";
    console.error(`${name}: ${message}${hint}\n\n${usage}`);
    process.exit(1);
  });
}
