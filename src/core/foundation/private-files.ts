import fs from "node:fs/promises";
import path from "node:path";
import { projectPaths, userPaths } from "./paths.js";

/**
 * What Offrun keeps to the user alone: all of `~/.offrun` (OFFRUN_HOME), and in a project the
 * chat logs, the agent records with their setup logs, drafts and reviews, and the memory
 * snapshots. Whole conversations, tasks and pending commands live there, and Claude Code writes
 * its own transcripts 0600 in 0700 folders: Offrun's copies are no weaker. The memory files and
 * `.offrun/config.json` are the user's to commit: the umask makes their modes.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Makes `dir` user-only. A recursive mkdir gives the mode to every folder it makes, so a project's
 * `.offrun` must exist first (ensureProjectDirs makes it with the umask's mode).
 */
export async function makePrivateDir(dir: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/** The folders of a project that hold its conversations and records (never `.worktrees/`: that is user code). */
export function privateProjectDirs(root: string): string[] {
  const paths = projectPaths(root);
  return [paths.chats, paths.agents, paths.memorySnapshots];
}

export interface Tightening {
  /** Files and folders that were readable by others and no longer are. */
  changed: string[];
  /** What could not be changed (another owner, a read-only disk), with the reason. */
  failed: { path: string; problem: string }[];
}

/**
 * Takes group and other access off `target` and everything under it, keeping the owner's bits
 * (a login script stays executable). Symlinks are neither followed nor changed: chmod would change
 * what they point at, which may be anywhere. `descend(dir)` false leaves a folder's contents alone.
 */
export async function tightenTree(
  target: string,
  descend: (dir: string) => boolean = () => true,
  into: Tightening = { changed: [], failed: [] },
): Promise<Tightening> {
  const stat = await fs.lstat(target).catch(() => undefined);
  // Sockets are made 0600 where they are made (the companion's); anything else is not Offrun's.
  if (!stat || !(stat.isDirectory() || stat.isFile())) return into;
  if ((stat.mode & 0o077) !== 0) {
    await fs.chmod(target, stat.mode & 0o700).then(
      () => into.changed.push(target),
      (error: unknown) => into.failed.push({ path: target, problem: (error as Error).message }),
    );
  }
  if (!stat.isDirectory() || !descend(target)) return into;
  const names = await fs.readdir(target).catch(() => [] as string[]);
  await Promise.all(names.map((name) => tightenTree(path.join(target, name), descend, into)));
  return into;
}

/**
 * Once per companion start: tightens what was written before Offrun made its files private (0644
 * files in 0755 folders), in OFFRUN_HOME and in the private folders of every known project. New
 * files get their mode from their writers; this pass is for the ones already there, and stays off
 * the CLI's path. Inside each added login's home (`accounts/<harness>/<label>/`) the files are the
 * CLI's own and may be many: the home itself is made 0700, its contents are left as the CLI keeps them.
 */
export async function tightenPrivateFiles(home: string, projects: string[]): Promise<Tightening> {
  const loginHomes = userPaths(home).loginHomes;
  const isInsideLoginHome = (dir: string) => {
    const relative = path.relative(loginHomes, dir);
    return !relative.startsWith("..") && !path.isAbsolute(relative) && relative.split(path.sep).length >= 2;
  };
  const result = await tightenTree(home, (dir) => !isInsideLoginHome(dir));
  for (const root of projects) {
    for (const dir of privateProjectDirs(root)) await tightenTree(dir, () => true, result);
  }
  return result;
}
