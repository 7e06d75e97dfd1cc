import fs from "node:fs/promises";
import path from "node:path";

/**
 * Where a sandboxed turn's new git objects wait (quarantine.ts says why), without git: the git
 * helper (repo.ts) asks it at every call in a worktree, and quarantine.ts runs git.
 */
export const QUARANTINE_FOLDER = "offrun-objects";

/** The quarantine of the worktree whose own git folder is `gitDir`. */
export function quarantineOf(gitDir: string): string {
  return path.join(gitDir, QUARANTINE_FOLDER);
}

/**
 * A path in GIT_ALTERNATE_OBJECT_DIRECTORIES: a colon separates entries, so a path with one (or a
 * quote or backslash) is written C-quoted, as git reads it (sha1-file.c, parse_alt_odb_entry).
 */
export function alternateEntry(dir: string): string {
  if (!/[:"\\]/.test(dir)) return dir;
  return `"${dir.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

/** The environment of a sandboxed turn's git: new objects to the quarantine, the shared store read-only beside it. */
export function quarantineEnv(commonDir: string, gitDir: string): Record<string, string> {
  return {
    GIT_OBJECT_DIRECTORY: quarantineOf(gitDir),
    GIT_ALTERNATE_OBJECT_DIRECTORIES: alternateEntry(path.join(commonDir, "objects")),
  };
}

/**
 * For Offrun's own git reads in a worktree whose turn is running (its diff for a view, a review):
 * the quarantine as an alternate, so that they see the agent's new commits before they are moved
 * in. Undefined when the worktree has none, or `cwd` is no linked worktree (its `.git` is no file).
 */
export async function quarantineAlternate(cwd: string): Promise<Record<string, string> | undefined> {
  const link = await fs.readFile(path.join(cwd, ".git"), "utf8").catch(() => undefined);
  const gitDir = /^gitdir: (.+)$/m.exec(link ?? "")?.[1]?.trim();
  if (!gitDir) return undefined;
  const dir = quarantineOf(path.resolve(cwd, gitDir));
  const entries = await fs.readdir(dir).catch(() => []);
  return entries.length > 0 ? { GIT_ALTERNATE_OBJECT_DIRECTORIES: alternateEntry(dir) } : undefined;
}
