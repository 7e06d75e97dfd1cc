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
}

/**
 * Writes an executable that stands in for an agent CLI in supervisor tests: it logs its argv
 * (one line per call, to <file>.argv), replays a recorded stream, and can misbehave on purpose.
 * End-to-end tests use the real CLIs; this is for what a real CLI will not do on demand.
 */
export async function writeStubCli(file: string, options: StubOptions): Promise<string> {
  const script = [
    "#!/bin/sh",
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
