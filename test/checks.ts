// npm test's first step: the generated files (the default library's snapshot, `wrangler types`),
// then the type checks beside the lint. Each checker is single-threaded, so on two cores they take
// the time of the slower one. A check that fails prints its whole output.
import { spawn } from "node:child_process";

interface Check {
  script: string;
  ok: boolean;
  output: string;
  seconds: number;
}

/** `npm run <script>`, its output held until it ends. */
function npmRun(script: string): Promise<Check> {
  const started = Date.now();
  const child = spawn("npm", ["run", "--silent", script], { stdio: ["ignore", "pipe", "pipe"], shell: process.platform === "win32" });
  let output = "";
  child.stdout.on("data", (data: Buffer) => (output += data.toString()));
  child.stderr.on("data", (data: Buffer) => (output += data.toString()));
  return new Promise((resolve) => {
    child.once("close", (code) => resolve({ script, ok: code === 0, output, seconds: (Date.now() - started) / 1000 }));
  });
}

function report(check: Check): void {
  console.log(`${check.ok ? "passed" : "FAILED"}: npm run ${check.script} (${check.seconds.toFixed(0)} s)`);
  if (!check.ok) console.log(check.output.trimEnd());
}

const generated = await npmRun("generate");
report(generated);
if (!generated.ok) process.exit(1);
const checks = await Promise.all(
  ["typecheck:only", "lint"].map(async (script) => {
    const check = await npmRun(script);
    report(check);
    return check;
  }),
);
if (checks.some((check) => !check.ok)) process.exit(1);
