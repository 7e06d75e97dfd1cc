import fs from "node:fs/promises";
import path from "node:path";
import { OffrunError } from "../../core/foundation/errors.js";
import { copyMarkingLines } from "../shared/copied-lines.js";
import { findCodexRollout } from "./rollout.js";

/** Codex keeps every thread at `<home>/sessions/YYYY/MM/DD/rollout-<local time>-<thread id>.jsonl`. */
export function codexSessionRoots(home: string): string[] {
  return [path.join(home, "sessions")];
}

/**
 * Copies a thread's rollout to the same relative path under another home, where
 * `codex exec resume <id>` finds it (the cwd plays no part: Codex files threads by date).
 */
export async function copyCodexSession(request: {
  fromHome: string;
  toHome: string;
  sessionId: string;
}): Promise<{ file: string }> {
  const source = await findCodexRollout(request.fromHome, request.sessionId);
  if (!source) {
    throw new OffrunError(
      "not_found",
      `Codex thread ${request.sessionId} has no rollout under ${path.join(request.fromHome, "sessions")}. ` +
        "It cannot be resumed in another login.",
    );
  }
  const target = path.join(request.toHome, path.relative(request.fromHome, source));
  await fs.mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
  await copyMarkingLines(source, target);
  return { file: target };
}
