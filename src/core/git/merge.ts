import fs from "node:fs/promises";
import path from "node:path";
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
    const there = await present(root, files);
    const message = `offrun: merge agent ${agent} (${branch}) into ${target}`;
    const args = [...(await identityArgs(root)), "merge", "--no-ff", "--no-verify", "--no-edit", "-m", message, ref];
    const result = await git(root, args, { okExitCodes: [1, 2, 128] });
    if (result.exitCode !== 0) {
      const left = await putBack(root, files, there);
      await failMerge(root, request, target, result.stdout + result.stderr, left);
    }
    return { mergedInto: target, commit: await headCommit(root), files };
  });
}

/** Which of `files` are in the main checkout now. */
async function present(root: string, files: string[]): Promise<Set<string>> {
  const found = await Promise.all(files.map(async (file) => ((await exists(path.join(root, file))) ? file : "")));
  return new Set(found.filter((file) => file !== ""));
}

/**
 * A merge git stopped before it had a merge to abort (no MERGE_HEAD: a full disk while it checked
 * the files out) leaves HEAD as it was but the files it had written by then in the checkout: a
 * tracked file half overwritten, a new file cut short. They are put back as HEAD has them; a new
 * file that was not there before is removed. (The checkout had no uncommitted changes to lose:
 * mergeAgent refuses those, and git refuses to overwrite an untracked file.) Returns what could
 * not be put back.
 */
async function putBack(root: string, files: string[], there: Set<string>): Promise<string[]> {
  const inProgress = await git(root, ["rev-parse", "-q", "--verify", "MERGE_HEAD"], { okExitCodes: [1] });
  if (inProgress.exitCode === 0 || files.length === 0) return [];
  const ofMerge = new Set(files);
  // Whole listings filtered here, no pathspecs: a merge may bring thousands of files, of any name.
  const changed = splitZ((await git(root, ["diff", "--name-only", "-z", "HEAD"])).stdout).filter((f) => ofMerge.has(f));
  const added = splitZ((await git(root, ["ls-files", "-z", "--others", "--exclude-standard"])).stdout).filter(
    (f) => ofMerge.has(f) && !there.has(f),
  );
  const left: string[] = [];
  if (changed.length > 0) {
    const restored = await git(root, ["checkout", "-q", "HEAD", "--pathspec-from-file=-", "--pathspec-file-nul"], {
      input: `${changed.join("\0")}\0`,
      env: { GIT_LITERAL_PATHSPECS: "1" },
      okExitCodes: [0, 1, 128],
    });
    if (restored.exitCode !== 0) left.push(...changed);
  }
  for (const file of added) await fs.rm(path.join(root, file), { force: true }).catch(() => left.push(file));
  return left;
}

/** Aborts a failed merge and throws: "conflict" with the files, or "git" with git's reason. */
async function failMerge(
  root: string,
  request: MergeRequest,
  target: string,
  output: string,
  left: string[],
): Promise<never> {
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
  const notBack =
    left.length === 0
      ? ""
      : ` These files of the merge are still in ${root}: ${listOf(left)}; put them back with \`git checkout HEAD -- <file>\` (or delete the new ones).`;
  throw new OffrunError(
    "git",
    `Merging ${agent} (${branch}) into ${target} failed: ${output.trim().split("\n").slice(0, 8).join("\n")}${notBack}`,
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
