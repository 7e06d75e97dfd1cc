import fs from "node:fs/promises";
import { describeError, OffrunError } from "../foundation/errors.js";
import { freeKb, ranOutOfRoom } from "../foundation/disk-full.js";
import type { AgentRecord } from "../foundation/model.js";
import { projectPaths } from "../foundation/paths.js";
import { git } from "../git/repo.js";
import { BranchTakenError } from "../git/worktrees.js";
import { memoryFiles } from "../memory/files.js";

/** What was there before a start's checkout: what its undo must leave alone. */
export interface BeforeCheckout {
  branchExisted: boolean;
  worktreesDirExisted: boolean;
  folderExisted: boolean;
  memoryExisted: boolean;
}

/**
 * Looks before a start's checkout. The branch is not asked about again: the start refused a taken
 * one before its record existed (setup.ts), and one made in the moment since makes `git worktree
 * add` refuse it with a BranchTakenError, which the undo reads as "not ours" (undoFailedStart).
 */
export async function lookBeforeCheckout(record: AgentRecord): Promise<BeforeCheckout> {
  const root = record.project;
  const [worktrees, folder, memory] = await Promise.all([
    exists(projectPaths(root).worktrees),
    exists(record.worktree),
    exists(memoryFiles(root, record.name).agentDir),
  ]);
  return {
    branchExisted: false,
    worktreesDirExisted: worktrees,
    folderExisted: folder,
    memoryExisted: memory,
  };
}

/**
 * After a start's worktree failed: a checkout that completed and then failed its setup keeps its
 * worktree for inspection and says how to remove it; anything else (a full disk above all) is
 * undone: the worktree git registered, the branch this start made, an empty `.worktrees/` it made,
 * and the agent's record and logs. Returns the error to show, with the real cause: a full disk
 * is said as that, not as the "branch already exists" its half-made branch would suggest.
 */
export async function undoFailedStart(
  record: AgentRecord,
  before: BeforeCheckout,
  error: unknown,
): Promise<OffrunError> {
  const root = record.project;
  const kb = await freeKb(root);
  const text = `${describeError(error)}\n${error instanceof OffrunError ? (error.details ?? "") : ""}`;
  const diskFull = await ranOutOfRoom(root, error);
  const checkedOut = !before.folderExisted && (await isRegistered(root, record.worktree));
  if (checkedOut && !diskFull) {
    return new OffrunError(
      error instanceof OffrunError ? error.kind : "process_failed",
      `${describeError(error)} Remove it with \`offrun discard ${record.name} --force\`.`,
      { cause: error, ...(error instanceof OffrunError && error.details ? { details: error.details } : {}) },
    );
  }
  const left = await undo(record, {
    ...before,
    branchExisted: before.branchExisted || error instanceof BranchTakenError,
  });
  const cause = diskFull
    ? `the disk holding ${root} is full${kb === undefined ? "" : ` (${kb} KB free)`}: free space, then start it again`
    : describeError(error);
  const tail = left.length === 0 ? "Nothing was left behind." : `Could not remove: ${left.join("; ")}.`;
  return new OffrunError(
    diskFull ? "process_failed" : errorKind(error),
    `Could not start ${record.name}: ${cause}. ${tail}`,
    {
      cause: error,
      details: text,
    },
  );
}

/**
 * A start cut short by a crash (the companion killed between the agent's record and its worktree's
 * being recorded): the record still has no base and no turn ran. Nothing of it can go on.
 */
export function isUnfinishedStart(record: AgentRecord): boolean {
  return record.turns === 0 && record.base === "";
}

/**
 * Undoes a start cut short by a crash, as a failed start is undone (its worktree and folder, the
 * branch `worktree add -b` made, its record and logs); the project's `.worktrees/` and the agent's
 * memory folder are kept. Returns what could not be undone.
 *
 * The branch is this start's when git registered the worktree with it. It is also when git was cut
 * short between the two (its companion killed, git's next write to the closed pipe ended it): a
 * start refuses a taken branch before its record exists (setup.ts), so a branch of the record's
 * name with no commit of its own (its tip already in HEAD) can only be that git's; deleting it
 * loses nothing. A branch with commits HEAD lacks is kept.
 */
export async function undoUnfinishedStart(record: AgentRecord): Promise<string[]> {
  const root = record.project;
  const registered = await isRegistered(root, record.worktree);
  const nothingOwn = async () =>
    (await git(root, ["merge-base", "--is-ancestor", `refs/heads/${record.branch}`, "HEAD"], { okExitCodes: [1, 128] }))
      .exitCode === 0;
  return undo(record, {
    folderExisted: false,
    branchExisted: !registered && !(await nothingOwn()),
    worktreesDirExisted: true,
    memoryExisted: true,
  });
}

/** Undoes what the start made; returns what could not be undone, said for a person. */
async function undo(record: AgentRecord, before: BeforeCheckout): Promise<string[]> {
  const root = record.project;
  const paths = projectPaths(root);
  const left: string[] = [];
  const step = async (what: string, fn: () => Promise<unknown>) => {
    await fn().catch((error: unknown) => left.push(`${what} (${describeError(error)})`));
  };
  if (!before.folderExisted) {
    if (await isRegistered(root, record.worktree)) {
      await step(`the worktree ${record.worktree}`, () =>
        git(root, ["worktree", "remove", "--force", record.worktree]),
      );
    }
    await step(`the folder ${record.worktree}`, () => fs.rm(record.worktree, { recursive: true, force: true }));
    await step("git's list of worktrees", () => git(root, ["worktree", "prune"]));
  }
  if (!before.branchExisted) {
    const made = await git(root, ["show-ref", "--verify", "--quiet", `refs/heads/${record.branch}`], {
      okExitCodes: [1],
    });
    if (made.exitCode === 0)
      await step(`the branch ${record.branch}`, () => git(root, ["branch", "-D", record.branch]));
  }
  // Only an empty one, and only one this start made: rmdir refuses a folder with anything in it.
  if (!before.worktreesDirExisted) await fs.rmdir(paths.worktrees).catch(() => undefined);
  // The memory folder this start made holds only the starter headings: an earlier agent's is kept.
  if (!before.memoryExisted) {
    const dir = memoryFiles(root, record.name).agentDir;
    await step(`the memory folder ${dir}`, () => fs.rm(dir, { recursive: true, force: true }));
  }
  for (const file of [paths.agent(record.name), paths.chat(record.name), paths.log(record.name)]) {
    await step(file, () => fs.rm(file, { force: true }));
  }
  return left;
}

async function isRegistered(root: string, worktree: string): Promise<boolean> {
  const listed = await git(root, ["worktree", "list", "--porcelain", "-z"]).catch(() => undefined);
  if (!listed) return false;
  return listed.stdout.split("\0").some((line) => line === `worktree ${worktree}`);
}

function errorKind(error: unknown) {
  return error instanceof OffrunError ? error.kind : "process_failed";
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}
