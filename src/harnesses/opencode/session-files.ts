import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { locateBinary } from "../../core/foundation/binaries.js";
import { OffrunError } from "../../core/foundation/errors.js";
import { localRunner, type ProcessRunner } from "../../core/foundation/runner.js";

/**
 * OpenCode 1.18.33 keeps sessions in one SQLite database, `$XDG_DATA_HOME/opencode/opencode.db`
 * (with -wal/-shm beside it), not in files of their own: a session moves between homes with
 * `opencode export <id>` (JSON on stdout) and `opencode import <file>`, which is what
 * copySession runs. Checked: a session imported into another home resumes there with `-s <id>`
 * and sends the whole history.
 */

const COMMAND_TIMEOUT_MS = 60_000;

/** Quiet variables every OpenCode process of Offrun's gets: no self-update, model list or share calls. */
export const OPENCODE_QUIET_ENV = {
  OPENCODE_DISABLE_AUTOUPDATE: "1",
  OPENCODE_DISABLE_MODELS_FETCH: "1",
  OPENCODE_DISABLE_SHARE: "1",
} as const;

/**
 * Nothing to watch: the sessions are rows of opencode.db, which changes on every write, and no
 * quota source reads them (see quotaSources in index.ts).
 */
export function opencodeSessionRoots(): string[] {
  return [];
}

/** OpenCode 1.18.33 colours its error lines even with NO_COLOR set. */
function withoutColour(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, "");
}

async function isDirectory(dir: string): Promise<boolean> {
  return fs.stat(dir).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

/** Exports the session from one home and imports it into another (both run by OpenCode itself). */
export async function copyOpencodeSession(request: {
  fromHome: string;
  toHome: string;
  sessionId: string;
  cwd: string;
  runner?: ProcessRunner;
}): Promise<void> {
  const runner = request.runner ?? localRunner;
  const binary = await locateBinary("opencode", "opencode");
  if (!binary) throw new OffrunError("not_installed", "OpenCode is not installed: `npm install -g opencode-ai`.");
  // Only the data home matters to export and import; the cwd is where the session was started.
  const cwd = (await isDirectory(request.cwd)) ? request.cwd : os.tmpdir();
  const envFor = (home: string) => ({ ...process.env, ...OPENCODE_QUIET_ENV, XDG_DATA_HOME: home, NO_COLOR: "1" });

  const exported = await runner.run(
    { file: binary, args: ["export", request.sessionId], cwd, env: envFor(request.fromHome) },
    { timeoutMs: COMMAND_TIMEOUT_MS, maxBuffer: 500_000_000 },
  );
  if (exported.timedOut || exported.exitCode !== 0 || !exported.stdout.trimStart().startsWith("{")) {
    // 1.18.33 prints "Error: Session not found: <id>" and exits 1 for a session it does not have.
    const said = withoutColour(exported.stderr).trim().split("\n").slice(-2).join(" ");
    throw new OffrunError(
      /not found/i.test(said) ? "not_found" : "process_failed",
      `OpenCode could not export session ${request.sessionId} from ${request.fromHome}: ${said || "no output"}. ` +
        "It cannot be resumed in another login.",
    );
  }

  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "offrun-opencode-"));
  try {
    const file = path.join(dir, `${request.sessionId}.json`);
    await fs.writeFile(file, exported.stdout, { mode: 0o600 });
    await fs.mkdir(request.toHome, { recursive: true, mode: 0o700 });
    const imported = await runner.run(
      { file: binary, args: ["import", file], cwd, env: envFor(request.toHome) },
      { timeoutMs: COMMAND_TIMEOUT_MS },
    );
    if (imported.timedOut || imported.exitCode !== 0) {
      const said = `${imported.stdout}\n${imported.stderr}`.trim().slice(-500);
      throw new OffrunError(
        "process_failed",
        `OpenCode could not import session ${request.sessionId} into ${request.toHome}: ${said || "no output"}.`,
      );
    }
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
