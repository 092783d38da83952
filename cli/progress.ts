// Progress of a long command on stderr: one line rewritten in place on a terminal, a few lines in a log.

/** Lines in a log (not a terminal) at most this often, so a 100,000-chunk run prints a screenful, not thousands. */
const LOG_EVERY_MS = 5_000;

/**
 * A progress printer for `name`: on a terminal each line replaces the last
 * (`\r`), and `done()` ends it; elsewhere a line is printed at most every
 * five seconds, the first of each phase (its first word: "prepared",
 * "writing", "wrote") and the last one always.
 *
 * @example const progress = progressPrinter("ingest"); progress.update("wrote 10/20 pages"); progress.done();
 */
export function progressPrinter(name: string, stream: NodeJS.WriteStream = process.stderr): { update(line: string): void; done(): void } {
  let last = "";
  let printedPhase = "";
  let printedAt = 0;
  let pending = false;
  return {
    update(line) {
      last = line;
      if (stream.isTTY) {
        stream.write(`\r\x1b[2K${name}: ${line}`);
        pending = true;
        return;
      }
      const phase = line.split(" ")[0] ?? "";
      if (phase === printedPhase && Date.now() - printedAt < LOG_EVERY_MS) {
        pending = true;
        return;
      }
      stream.write(`${name}: ${line}\n`);
      printedPhase = phase;
      printedAt = Date.now();
      pending = false;
    },
    done() {
      if (!pending) return;
      stream.write(stream.isTTY ? "\n" : `${name}: ${last}\n`);
      pending = false;
    },
  };
}
