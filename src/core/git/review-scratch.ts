import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describeError, OffrunError } from "../foundation/errors.js";
import { git } from "./repo.js";
import { withRepoLock } from "./lock.js";
import { injectFault } from "../foundation/fault-points.js";

/** What the reviewer is shown: the agent's work since its base, as git sees it. */
export interface AuthorChanges {
  /** Binary-safe patch (`--binary --full-index`) from the base to the worktree, untracked files included. */
  patch: string;
  /** The same diff as text only, for the prompt and the line check (binary files named, not dumped). */
  textPatch: string;
  files: string[];
  /** `<short sha> <subject>` of each commit on the agent's branch since the base, oldest first. */
  commits: string[];
}

const PATCH_CAP = 200_000_000;

/**
 * Reads the author's work without touching its worktree or index: untracked files are staged
 * into a throwaway copy of the index (as src/core/git/diff.ts does).
 */
export async function readAuthorChanges(worktree: string, base: string): Promise<AuthorChanges> {
  const indexPath = (await git(worktree, ["rev-parse", "--path-format=absolute", "--git-path", "index"])).stdout.trim();
  const tmpDir = await fs.mkdtemp(path.join(os.tmpdir(), "offrun-review-"));
  const tmpIndex = path.join(tmpDir, "index");
  try {
    await fs.copyFile(indexPath, tmpIndex).catch(() => undefined);
    const env = { GIT_INDEX_FILE: tmpIndex };
    await git(worktree, ["add", "-A", "--", "."], { env });
    const common = ["diff", "--cached", "--no-ext-diff", "--no-textconv", "--no-color", "--no-renames"];
    const options = { env, maxBuffer: PATCH_CAP };
    const [binary, text, names, log] = await Promise.all([
      git(worktree, [...common, "--binary", "--full-index", base, "--"], options),
      git(worktree, [...common, base, "--"], options),
      git(worktree, [...common, "--name-only", "-z", base, "--"], options),
      git(worktree, ["log", "--reverse", "--format=%h %s", `${base}..HEAD`]),
    ]);
    return {
      patch: binary.stdout,
      textPatch: text.stdout,
      files: names.stdout.split("\0").filter(Boolean),
      commits: log.stdout.split("\n").filter(Boolean),
    };
  } finally {
    await fs.rm(tmpDir, { recursive: true, force: true });
  }
}

/**
 * A throwaway worktree, detached at the author's base with the author's changes applied: the
 * reviewer works here, so the author's own files are out of its reach. Lives under .worktrees/
 * (excluded from git) so the reviewer sees the project's own instructions files too.
 */
export async function createScratch(root: string, base: string, id: string, patch: string): Promise<string> {
  const dir = path.join(root, ".worktrees", `.review-${id}`);
  await withRepoLock(root, () => git(root, ["worktree", "add", "--detach", "--", dir, base]));
  try {
    injectFault("scratch", dir);
    if (patch.trim() === "") return dir;
    await git(dir, ["apply", "--binary", "--whitespace=nowarn", "-"], {
      input: patch,
      timeoutMs: 120_000,
      maxBuffer: 10_000_000,
    }).catch((error: unknown) => {
      throw new OffrunError(
        "git",
        `The author's changes do not apply to a fresh checkout of the base: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
  } catch (error) {
    await removeScratch(root, dir).catch(() => undefined);
    throw error;
  }
  return dir;
}

/** Removes the scratch worktree and its bookkeeping; safe to repeat. */
export async function removeScratch(root: string, dir: string): Promise<void> {
  await withRepoLock(root, async () => {
    try {
      await git(root, ["worktree", "remove", "--force", "--force", "--", dir]);
    } catch (error) {
      // Already half gone (a crash mid-review): remove the folder and let git forget it.
      await fs.rm(dir, { recursive: true, force: true });
      await git(root, ["worktree", "prune"]).catch(() => undefined);
      if (await exists(dir)) throw new OffrunError("git", `Could not remove ${dir}: ${describeError(error)}`);
    }
  });
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}
