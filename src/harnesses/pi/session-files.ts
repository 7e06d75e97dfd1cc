import fs from "node:fs/promises";
import path from "node:path";
import { OffrunError } from "../../core/foundation/errors.js";

/**
 * Pi 0.73.1 keeps each session at `<home>/sessions/--<cwd>--/<timestamp>_<session id>.jsonl`,
 * where the folder is the cwd without its leading '/' and with every '/', '\' and ':' turned
 * into '-' (pi-mono `session-manager.ts`). `--session <id>` finds a session in any folder of
 * the home, so a copy at the same relative path resumes in another login (checked).
 */

export function piSessionRoots(home: string): string[] {
  return [path.join(home, "sessions")];
}

export function piSessionFolder(cwd: string): string {
  return `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
}

async function findIn(dir: string, sessionId: string): Promise<string | undefined> {
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  const name = names.find((n) => n.endsWith(`_${sessionId}.jsonl`));
  return name === undefined ? undefined : path.join(dir, name);
}

/** The session's file under `home`: in the folder of `cwd` (or of its real path), else in any folder. */
export async function findPiSession(home: string, sessionId: string, cwd: string): Promise<string | undefined> {
  const sessions = path.join(home, "sessions");
  const realCwd = await fs.realpath(cwd).catch(() => cwd);
  for (const folder of new Set([piSessionFolder(cwd), piSessionFolder(realCwd)])) {
    const found = await findIn(path.join(sessions, folder), sessionId);
    if (found) return found;
  }
  for (const folder of await fs.readdir(sessions).catch(() => [] as string[])) {
    const found = await findIn(path.join(sessions, folder), sessionId);
    if (found) return found;
  }
  return undefined;
}

export async function copyPiSession(request: {
  fromHome: string;
  toHome: string;
  sessionId: string;
  cwd: string;
}): Promise<void> {
  const source = await findPiSession(request.fromHome, request.sessionId, request.cwd);
  if (!source) {
    throw new OffrunError(
      "not_found",
      `Pi session ${request.sessionId} is not in ${path.join(request.fromHome, "sessions")} ` +
        `(looked in ${piSessionFolder(request.cwd)}/). It cannot be resumed in another login.`,
    );
  }
  const target = path.join(request.toHome, path.relative(request.fromHome, source));
  await fs.mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
  await fs.copyFile(source, target);
}
