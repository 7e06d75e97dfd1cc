import { PassThrough } from "node:stream";
import { localRunner, wrappedRunner, type ProcessRunner } from "../../../../src/core/foundation/runner.js";
import type { Command } from "../../../../src/core/foundation/process.js";

// A wrapped runner starts the wrapper with the original command as its argument list, for all
// three kinds of spawn. `env` stands in for a sandbox launcher: it sets a variable, then runs the CLI.
const wrap = (command: Command): Command => ({
  ...command,
  file: "/usr/bin/env",
  args: ["OFFRUN_WRAPPED=yes", command.file, ...command.args],
});
const runner: ProcessRunner = wrappedRunner(wrap);
const script = (code: string): Command => ({ file: process.execPath, args: ["-e", code] });
const printWrapped = "console.log(process.env.OFFRUN_WRAPPED ?? 'no')";

test("run: the wrapper runs the command, which sees what the wrapper set", async () => {
  expect((await runner.run(script(printWrapped))).stdout.trim()).toBe("yes");
  expect((await localRunner.run(script(printWrapped))).stdout.trim()).toBe("no");
});

test("stream: each line of the wrapped command arrives", async () => {
  const lines: string[] = [];
  const result = await runner.stream(script(`${printWrapped}; console.log("second")`), {
    timeoutMs: 20_000,
    idleTimeoutMs: 20_000,
    onLine: (line) => void lines.push(line),
  });
  expect(result).toSucceed();
  expect(lines).toEqual(["yes", "second"]);
});

test("piped: stdin reaches the wrapped command and its answer comes back", async () => {
  const child = runner.piped(
    script(
      "process.stdin.once('data', (d) => { console.log(process.env.OFFRUN_WRAPPED + ':' + String(d).trim()); process.exit(0); })",
    ),
    { timeoutMs: 20_000, idleTimeoutMs: 20_000 },
  );
  const out = new PassThrough({ objectMode: true });
  child.stdout.pipe(out);
  child.stdin.write("ping\n");
  const [line] = (await out.toArray()) as string[];
  expect(line).toBe("yes:ping");
  expect(await child.exited).toSucceed();
});

// Found by Start Companion's login shell: a profile's `sleep` kept stdout open after the shell was
// killed at its timeout, and the run waited for it to end (30 s for a 1 s budget).
test("run: the timeout ends what the command left behind too, not only the command", async () => {
  const started = Date.now();
  const result = await localRunner.run({ file: "sh", args: ["-c", "sleep 30 & echo started"] }, { timeoutMs: 500 });
  expect(result.stdout).toBe("started\n");
  expect(Date.now() - started).toBeLessThan(10_000);
});
