import fs from "node:fs/promises";
import { OffrunError } from "../foundation/errors.js";
import { withRepoLock } from "./lock.js";
import { currentBranch, dirtyFiles, git, headCommit, resolveCommit } from "./repo.js";

/** Commits everything in the worktree (untracked included); the new sha, or undefined when nothing changed. */
export async function commitAgentWork(request: { worktree: string; message: string }): Promise<string | undefined> {
  const { worktree, message } = request;
  return withRepoLock(worktree, async () => {
    await git(worktree, ["add", "-A", "--", "."]);
    const staged = await git(worktree, ["diff", "--cached", "--quiet"], { okExitCodes: [1] });
    if (staged.exitCode === 0) return undefined;
    // Offrun commits on the user's behalf when merging: their hooks (lint-staged etc.) would
    // run in a worktree without dependencies installed, so they are skipped here.
    await git(worktree, [...(await identityArgs(worktree)), "commit", "--no-verify", "-q", "-m", message]);
    return headCommit(worktree);
  });
}

/** `-c user.name/-c user.email` for whatever the repository lacks, so a commit never fails on identity. */
export async function identityArgs(dir: string): Promise<string[]> {
  const args: string[] = [];
  for (const [key, fallback] of [
    ["user.name", "Offrun"],
    ["user.email", "offrun@localhost"],
  ] as const) {
    const set = await git(dir, ["config", "--get", key], { okExitCodes: [1] });
    if (set.exitCode !== 0 || set.stdout.trim() === "") args.push("-c", `${key}=${fallback}`);
  }
  return args;
}

export interface MergeRequest {
  root: string;
  worktree: string;
  branch: string;
  agent: string;
  task: string;
}

export interface MergeResult {
  /** The main checkout's branch that received the merge. */
  mergedInto: string;
  /** The merge commit (or HEAD, when the branch was already merged). */
  commit: string;
  /** Paths the merge brought in. */
  files: string[];
}

/** `offrun: <agent>: <first line of the task, at most 72 characters>`. */
export function agentCommitMessage(agent: string, task: string): string {
  const firstLine = (task.split("\n").find((line) => line.trim() !== "") ?? "").trim();
  const title = firstLine.length > 72 ? `${firstLine.slice(0, 71).trimEnd()}…` : firstLine;
  return title === "" ? `offrun: ${agent}` : `offrun: ${agent}: ${title}`;
}

/**
 * Commits the agent's pending work on its branch, then merges the branch (--no-ff) into the
 * branch checked out in the main checkout. A conflict aborts the merge, so the main checkout
 * is left exactly as it was.
 */
export async function mergeAgent(request: MergeRequest): Promise<MergeResult> {
  const { root, worktree, branch, agent } = request;
  return withRepoLock(root, async () => {
    const target = await currentBranch(root);
    if (target === undefined) {
      throw new OffrunError(
        "invalid_input",
        `The main checkout at ${root} is on a detached HEAD. Check out the branch to merge into (for example \`git switch main\`), then merge ${agent} again.`,
      );
    }
    // Untracked files are not in the way of a merge unless git says so below.
    const dirty = await dirtyFiles(root, { ignoreOffrun: true, includeUntracked: false });
    if (dirty.length > 0) {
      throw new OffrunError(
        "invalid_input",
        `The main checkout at ${root} has uncommitted changes: ${listOf(dirty)}. Commit or stash them, then merge ${agent} again.`,
      );
    }
    if (await exists(worktree)) await commitAgentWork({ worktree, message: agentCommitMessage(agent, request.task) });
    const ref = `refs/heads/${branch}`;
    if ((await resolveCommit(root, ref)) === undefined) {
      throw new OffrunError(
        "not_found",
        `Branch ${branch} of ${agent} does not exist in ${root}; there is nothing to merge.`,
      );
    }
    const merged = await git(root, ["merge-base", "--is-ancestor", ref, "HEAD"], { okExitCodes: [1] });
    if (merged.exitCode === 0) return { mergedInto: target, commit: await headCommit(root), files: [] };
    const files = splitZ((await git(root, ["diff", "--name-only", "-z", `HEAD...${ref}`, "--"])).stdout);
    const message = `offrun: merge agent ${agent} (${branch}) into ${target}`;
    const args = [...(await identityArgs(root)), "merge", "--no-ff", "--no-verify", "--no-edit", "-m", message, ref];
    const result = await git(root, args, { okExitCodes: [1, 2, 128] });
    if (result.exitCode !== 0) await failMerge(root, request, target, result.stdout + result.stderr);
    return { mergedInto: target, commit: await headCommit(root), files };
  });
}

/** Aborts a failed merge and throws: "conflict" with the files, or "git" with git's reason. */
async function failMerge(root: string, request: MergeRequest, target: string, output: string): Promise<never> {
  const conflicts = splitZ((await git(root, ["diff", "--name-only", "--diff-filter=U", "-z"])).stdout);
  const inProgress = await git(root, ["rev-parse", "-q", "--verify", "MERGE_HEAD"], { okExitCodes: [1] });
  if (inProgress.exitCode === 0) await git(root, ["merge", "--abort"]);
  const { agent, branch } = request;
  if (conflicts.length > 0) {
    throw new OffrunError(
      "conflict",
      `Merging ${agent} (${branch}) into ${target} conflicts in ${listOf(conflicts)}. The merge was aborted and ${target} is unchanged. Ask ${agent} to merge ${target} into its branch and resolve the conflicts, or merge by hand with \`git merge ${branch}\`.`,
      { details: output },
    );
  }
  throw new OffrunError(
    "git",
    `Merging ${agent} (${branch}) into ${target} failed: ${output.trim().split("\n").slice(0, 8).join("\n")}`,
    { details: output },
  );
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}

function splitZ(text: string): string[] {
  return text.split("\0").filter((entry) => entry !== "");
}

function listOf(items: string[], max = 10): string {
  const shown = items.slice(0, max).join(", ");
  return items.length > max ? `${shown} and ${items.length - max} more` : shown;
}
