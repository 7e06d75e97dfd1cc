import fs from "node:fs/promises";
import path from "node:path";
import { PROJECT_ROOT } from "./offrun.js";

/** A fixture recorded from the real CLI, by harness, version and scenario. */
export function fixture(harness: "claude" | "codex", version: string, scenario: string): string {
  return path.join(PROJECT_ROOT, "test", "fixtures", harness, version, `${scenario}.jsonl`);
}

export interface StubOptions {
  /** Recorded stream to replay on stdout. */
  replay: string;
  /** Shell lines run after the replay (e.g. `sleep 30`, or touching a file in the worktree). */
  after?: string[];
  /** Shell lines run before the replay. */
  before?: string[];
  exitCode?: number;
  /** What `claude auth status` answers (recorded from 2.1.332): signed in with an API key unless false. */
  signedIn?: boolean;
}

/** Claude Code's `auth status` output as recorded (test/fixtures/record-auth-status.ts). */
function authStatusFixture(signedIn: boolean): string {
  return path.join(
    PROJECT_ROOT,
    "test",
    "fixtures",
    "claude",
    "2.1.332",
    signedIn ? "auth-status-api-key.json" : "auth-status-signed-out.json",
  );
}

/**
 * Writes an executable that stands in for an agent CLI in supervisor tests: it logs its argv
 * (one line per turn, to <file>.argv), replays a recorded stream, and can misbehave on purpose.
 * End-to-end tests use the real CLIs; this is for what a real CLI will not do on demand.
 * The companion checks sign-ins with `claude auth status`: the stub answers it as the real CLI
 * does (logged to <file>.status, not as a turn), so a status check never replays a turn.
 */
export async function writeStubCli(file: string, options: StubOptions): Promise<string> {
  const signedIn = options.signedIn ?? true;
  const script = [
    "#!/bin/sh",
    'if [ "$1" = auth ] && [ "$2" = status ]; then',
    `  printf '%s\\n' "$*" >> '${file}.status'`,
    `  cat '${authStatusFixture(signedIn)}'`,
    `  exit ${signedIn ? 0 : 1}`,
    "fi",
    `printf '%s\\n' "$*" >> '${file}.argv'`,
    ...(options.before ?? []),
    `cat '${options.replay}'`,
    ...(options.after ?? []),
    `exit ${options.exitCode ?? 0}`,
    "",
  ].join("\n");
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, script, { mode: 0o755 });
  return file;
}
