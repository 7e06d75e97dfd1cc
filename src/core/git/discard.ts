import fs from "node:fs/promises";
import path from "node:path";
import { OffrunError } from "../foundation/errors.js";
import { withRepoLock } from "./lock.js";
import { dirtyFiles, git, resolveCommit } from "./repo.js";

export interface DiscardRequest {
  root: string;
  worktree: string;
  branch: string;
  /** The agent's starting commit: commits before it are not the agent's to lose. */
  baseCommit?: string;
  force?: boolean;
  deleteBranch?: boolean;
}

export interface DiscardResult {
  removedWorktree: boolean;
  deletedBranch: boolean;
}

/**
 * Removes an agent's worktree (and its branch when asked). Without `force` it refuses to lose
 * uncommitted work or commits the main checkout's branch does not have. Safe to repeat.
 */
export async function discardWorktree(request: DiscardRequest): Promise<DiscardResult> {
  const { root, worktree, branch, force = false } = request;
  return withRepoLock(root, async () => {
    const registered = await isRegisteredWorktree(root, worktree);
    const onDisk = await exists(worktree);
    const ref = `refs/heads/${branch}`;
    const branchExists = (await resolveCommit(root, ref)) !== undefined;
    const lost: string[] = [];
    if (registered && onDisk) {
      const dirty = await dirtyFiles(worktree);
      if (dirty.length > 0) lost.push(`uncommitted changes in ${listOf(dirty)}`);
    } else if (onDisk) {
      lost.push(`the folder ${worktree}, which git does not know as a worktree`);
    }
    const unmerged = branchExists ? await unmergedCommits(root, ref, request.baseCommit) : [];
    if (unmerged.length > 0)
      lost.push(`${unmerged.length} commit(s) on ${branch} not merged into the main checkout: ${listOf(unmerged)}`);
    if (lost.length > 0 && !force) {
      throw new OffrunError(
        "would_lose_work",
        `Discarding would lose ${lost.join("; and ")}. Merge first, or discard with --force to throw this away.`,
      );
    }
    if (registered && onDisk) await git(root, ["worktree", "remove", ...(force ? ["--force"] : []), "--", worktree]);
    else if (onDisk) await fs.rm(worktree, { recursive: true, force: true });
    await git(root, ["worktree", "prune"]);
    let deletedBranch = false;
    if (request.deleteBranch && branchExists && (force || unmerged.length === 0)) {
      await git(root, ["branch", "-D", branch]);
      deletedBranch = true;
    }
    return { removedWorktree: onDisk || registered, deletedBranch };
  });
}

/** "<short sha> <subject>" of commits on `ref` since `baseCommit` that HEAD of the main checkout lacks. */
async function unmergedCommits(root: string, ref: string, baseCommit: string | undefined): Promise<string[]> {
  const base = baseCommit === undefined ? undefined : await resolveCommit(root, baseCommit);
  const result = await git(root, ["log", "--format=%h %s", ref, "^HEAD", ...(base ? [`^${base}`] : []), "--"]);
  return result.stdout.split("\n").filter((line) => line !== "");
}

async function isRegisteredWorktree(root: string, worktree: string): Promise<boolean> {
  const listing = await git(root, ["worktree", "list", "--porcelain"]);
  const wanted = await canonical(worktree);
  for (const line of listing.stdout.split("\n")) {
    if (line.startsWith("worktree ") && (await canonical(line.slice("worktree ".length))) === wanted) return true;
  }
  return false;
}

async function canonical(file: string): Promise<string> {
  return fs.realpath(file).catch(() => path.resolve(file));
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}

function listOf(items: string[], max = 10): string {
  const shown = items.slice(0, max).join(", ");
  return items.length > max ? `${shown} and ${items.length - max} more` : shown;
}
