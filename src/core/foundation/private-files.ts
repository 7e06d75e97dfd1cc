import fs from "node:fs/promises";
import { projectPaths } from "./paths.js";

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
