import fs from "node:fs/promises";
import path from "node:path";
import { OffrunError } from "../../core/foundation/errors.js";
import { copyMarkingLines } from "../shared/copied-lines.js";

/**
 * Claude Code keeps each session at `<home>/projects/<project folder>/<session id>.jsonl`, with
 * its sub-agents' transcripts under `<project folder>/<session id>/`.
 */

/** Longer folder names are cut and get a hash suffix (2.1.332's `J$`). */
const MAX_FOLDER_LENGTH = 200;

/** Java's String.hashCode over UTF-16 code units, as Claude Code computes it. */
function stringHash(text: string): number {
  let hash = 0;
  for (let i = 0; i < text.length; i++) hash = (hash * 31 + text.charCodeAt(i)) | 0;
  return hash;
}

/**
 * The project folder name of a working directory. Checked against a real 2.1.332 run: every
 * character other than an ASCII letter or digit becomes "-" (not only "/" and "."), so
 * `/tmp/my.proj_x/sub dir` is `-tmp-my-proj-x-sub-dir`; names over 200 characters are cut to
 * 200 and get `-<base-36 hash of the path>`.
 */
export function claudeProjectFolder(cwd: string): string {
  const name = cwd.replace(/[^a-zA-Z0-9]/g, "-");
  if (name.length <= MAX_FOLDER_LENGTH) return name;
  return `${name.slice(0, MAX_FOLDER_LENGTH)}-${Math.abs(stringHash(cwd)).toString(36)}`;
}

export function claudeSessionRoots(home: string): string[] {
  return [path.join(home, "projects")];
}

async function exists(file: string): Promise<boolean> {
  return fs.stat(file).then(
    () => true,
    () => false,
  );
}

/**
 * The session's file under `home`: in the folder of `cwd` (or of its real path: the CLI sees
 * the resolved cwd, so /tmp on macOS is /private/tmp), else in any project folder.
 */
export async function findClaudeSession(home: string, sessionId: string, cwd: string): Promise<string | undefined> {
  const projects = path.join(home, "projects");
  const file = `${sessionId}.jsonl`;
  const realCwd = await fs.realpath(cwd).catch(() => cwd);
  for (const dir of new Set([claudeProjectFolder(cwd), claudeProjectFolder(realCwd)])) {
    const candidate = path.join(projects, dir, file);
    if (await exists(candidate)) return candidate;
  }
  const folders = await fs.readdir(projects).catch(() => []);
  for (const dir of folders) {
    const candidate = path.join(projects, dir, file);
    if (await exists(candidate)) return candidate;
  }
  return undefined;
}

/** Copies a session (and its sub-agents' folder) to the same place under another home. */
export async function copyClaudeSession(request: {
  fromHome: string;
  toHome: string;
  sessionId: string;
  cwd: string;
}): Promise<{ file: string }> {
  const source = await findClaudeSession(request.fromHome, request.sessionId, request.cwd);
  if (!source) {
    throw new OffrunError(
      "not_found",
      `Claude Code session ${request.sessionId} is not in ${path.join(request.fromHome, "projects")} ` +
        `(looked for ${claudeProjectFolder(request.cwd)}/${request.sessionId}.jsonl). It cannot be resumed in another login.`,
    );
  }
  const target = path.join(request.toHome, path.relative(request.fromHome, source));
  await fs.mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
  await copyMarkingLines(source, target);
  const subagents = path.join(path.dirname(source), request.sessionId);
  if (await exists(subagents)) {
    await fs.cp(subagents, path.join(path.dirname(target), request.sessionId), { recursive: true, force: true });
  }
  return { file: target };
}
