import fs from "node:fs/promises";
import path from "node:path";

/** A `notify-send` that records its calls, first on a PATH handed to the process under test. */
export interface RecordingNotifySend {
  /** The folder holding it: put it first on the companion's PATH (see `withNotifySend`). */
  bin: string;
  /** Each call's arguments, in order (node-notifier passes title then message, then options). */
  calls(): Promise<string[][]>;
}

/**
 * Installs the recording notify-send in `<dir>/bin`. Real node-notifier runs it (through a
 * shell, as it runs the real one on Linux): one line per argument, then a separator. Jest gives
 * tests a copy of process.env that child processes never see, so it works for a companion
 * started with `withNotifySend(env)`, not for node-notifier inside the test process.
 */
export async function recordingNotifySend(dir: string): Promise<RecordingNotifySend> {
  const bin = path.join(dir, "bin");
  const log = path.join(dir, "notify-send.calls");
  await fs.mkdir(bin, { recursive: true });
  await fs.writeFile(
    path.join(bin, "notify-send"),
    `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a" >> '${log}'; done\necho --- >> '${log}'\n`,
    { mode: 0o755 },
  );
  return {
    bin,
    calls: async () =>
      (await fs.readFile(log, "utf8").catch(() => ""))
        .split("---\n")
        .filter((call) => call !== "")
        .map((call) => call.trimEnd().split("\n")),
  };
}

/** `env` with the recording notify-send first on its PATH. */
export function withNotifySend(env: NodeJS.ProcessEnv, notifySend: RecordingNotifySend): NodeJS.ProcessEnv {
  return { ...env, PATH: `${notifySend.bin}${path.delimiter}${env.PATH ?? ""}` };
}
