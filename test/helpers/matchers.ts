import fs from "node:fs";
import path from "node:path";

// `expect(result).toSucceed()`: an `offrun` run that exited 0. When it did not, the failure shows
// what a user would have seen (its stdout and stderr) and the end of the companion's log, so that a
// failure in CI can be read without running it again.

interface RunLike {
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
  offrunHome?: string;
}

const LOG_LINES = 60;

function tail(text: string, lines: number): string {
  return text.split("\n").slice(-lines).join("\n");
}

function companionLog(offrunHome: string | undefined): string {
  if (!offrunHome) return "(no OFFRUN_HOME in the run's environment)";
  try {
    return tail(fs.readFileSync(path.join(offrunHome, "companion.log"), "utf8"), LOG_LINES);
  } catch {
    return "(no companion log)";
  }
}

expect.extend({
  toSucceed(received: RunLike) {
    const pass = received.exitCode === 0;
    return {
      pass,
      message: () =>
        pass
          ? "expected the run to fail, and it exited 0"
          : [
              `expected exit code 0, got ${String(received.exitCode)}`,
              `--- stdout:\n${tail(String(received.stdout ?? ""), 40)}`,
              `--- stderr:\n${tail(String(received.stderr ?? ""), 40)}`,
              `--- companion.log (last ${LOG_LINES} lines):\n${companionLog(received.offrunHome)}`,
            ].join("\n"),
    };
  },
});

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace jest {
    interface Matchers<R> {
      /** The `offrun` run exited 0; otherwise says its output and the companion's log. */
      toSucceed(): R;
    }
  }
}
