import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { git as runGit } from "./repo.js";

/**
 * A content hash of everything in a worktree (tracked, modified and untracked files, not
 * ignored ones) plus HEAD, computed through a throwaway index so the worktree's own index is
 * never touched. Two equal fingerprints mean nothing changed.
 */
export async function worktreeFingerprint(worktree: string): Promise<{ head: string; tree: string }> {
  const git = (args: string[], env?: Record<string, string>) =>
    runGit(worktree, args, { timeoutMs: 120_000, ...(env ? { env } : {}) });
  const head = (await git(["rev-parse", "HEAD"])).stdout.trim();
  const gitIndex = (await git(["rev-parse", "--git-path", "index"])).stdout.trim();
  const tmpDir = await fs.mkdtemp(path.join(os.tmpdir(), "offrun-fp-"));
  const tmpIndex = path.join(tmpDir, "index");
  try {
    // Starting from a copy of the real index lets git reuse its stat cache instead of hashing every file.
    await fs.copyFile(path.resolve(worktree, gitIndex), tmpIndex).catch(() => undefined);
    const env = { GIT_INDEX_FILE: tmpIndex };
    await git(["add", "-A", "--", "."], env);
    const tree = (await git(["write-tree"], env)).stdout.trim();
    return { head, tree };
  } finally {
    await fs.rm(tmpDir, { recursive: true, force: true });
  }
}

/** Paths that differ between two fingerprints of the same worktree. */
export async function changedBetween(
  worktree: string,
  before: { head: string; tree: string },
  after: { head: string; tree: string },
): Promise<string[]> {
  if (before.tree === after.tree && before.head === after.head) return [];
  const result = await runGit(worktree, ["diff", "--name-only", before.tree, after.tree], { timeoutMs: 60_000 });
  const files = result.stdout.split("\n").filter(Boolean);
  if (before.head !== after.head)
    files.unshift(`HEAD moved from ${before.head.slice(0, 8)} to ${after.head.slice(0, 8)}`);
  return files;
}
