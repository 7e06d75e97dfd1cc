import fs from "node:fs/promises";
import { readAgent, writeAgent, appendChat } from "../records/records.js";
import { OffrunError } from "../foundation/errors.js";
import { findRepoRoot } from "../git/repo.js";
import { diffWorktree } from "../git/diff.js";
import { discardWorktree } from "../git/discard.js";
import { mergeAgent } from "../git/merge.js";
import type { AgentRecord } from "../foundation/model.js";
import { projectPaths } from "../foundation/paths.js";
import { isAlive } from "../foundation/pids.js";
import { injectFault } from "../foundation/fault-points.js";
import { causeOf, failedForRoom, ranOutOfRoom } from "../foundation/disk-full.js";
import { writeTextAtomic } from "../foundation/store.js";
import { discardMarker } from "./branch-recovery.js";

/** Git-side operations on an agent that do not need the companion: diff, merge, discard. */

function refuseWhileWorking(record: AgentRecord, action: string): void {
  if (record.status === "working" && record.pid !== undefined && isAlive(record.pid)) {
    throw new OffrunError(
      "invalid_input",
      `${record.name} is still working on a turn. Wait for it or \`offrun stop ${record.name}\` before you ${action}.`,
    );
  }
}

async function requireWorktree(record: AgentRecord): Promise<void> {
  const exists = await fs.stat(record.worktree).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!exists) {
    throw new OffrunError(
      "not_found",
      `${record.name}'s worktree ${record.worktree} no longer exists (it was discarded).`,
    );
  }
}

export async function agentDiff(project: string, name: string) {
  const root = await findRepoRoot(project);
  const record = await readAgent(root, name);
  await requireWorktree(record);
  return { record, ...(await diffWorktree({ worktree: record.worktree, baseCommit: record.base })) };
}

export async function agentMerge(project: string, name: string) {
  const root = await findRepoRoot(project);
  const record = await readAgent(root, name);
  refuseWhileWorking(record, "merge");
  await requireWorktree(record);
  const result = await mergeAgent({
    root,
    worktree: record.worktree,
    branch: record.branch,
    agent: record.name,
    task: record.task,
  }).catch(async (error: unknown) => {
    // git's "error: unable to write" on a full disk reads as a failed merge: the disk is the cause.
    if (!(await ranOutOfRoom(root, error))) throw error;
    throw new OffrunError(
      "process_failed",
      `Could not merge ${name}: ${await causeOf(root, error)}. Free space, then merge again.`,
      { cause: error, ...(error instanceof OffrunError && error.details ? { details: error.details } : {}) },
    );
  });
  // The merge is git's and whole; what follows only says so. Cut short, it is finished by running
  // the merge again (an already merged branch is recorded as merged) or by the next companion.
  const now = new Date().toISOString();
  try {
    injectFault("merge", record.worktree);
    await writeAgent({ ...record, mergedAt: now, updatedAt: now });
    await appendChat(root, name, {
      type: "notice",
      level: "info",
      message: `Merged ${record.branch} into ${result.mergedInto} (${result.commit.slice(0, 8)}).`,
      at: now,
      turn: record.turns,
    });
  } catch (error) {
    throw new OffrunError(
      "process_failed",
      `Merged ${record.branch} into ${result.mergedInto} (${result.commit.slice(0, 8)}), but ${name}'s record and chat could not say so: ${await causeOf(root, error)}. Run \`offrun merge ${name}\` again to record it.`,
      { cause: error },
    );
  }
  return { record, ...result };
}

export async function agentDiscard(project: string, name: string, options: { force: boolean; deleteBranch: boolean }) {
  const root = await findRepoRoot(project);
  const record = await readAgent(root, name);
  // Discarded before, and nothing more asked of it: said so, nothing removed twice.
  if (record.discardedAt && !(await exists(record.worktree)) && (!options.deleteBranch || record.branchDeleted)) {
    return { record, worktreeRemoved: undefined, logFile: projectPaths(root).chat(name) };
  }
  if (!options.force) refuseWhileWorking(record, "discard it");
  // Written down first: a discard cut short after the worktree went is finished by the next
  // companion (branch-recovery.ts), never left as a record naming a worktree that is not there.
  const marker = discardMarker(root, name);
  await writeTextAtomic(marker, options.deleteBranch ? "delete-branch\n" : "\n", { fsync: false }).catch(
    async (error: unknown) => {
      if (!failedForRoom(error)) throw error;
      throw new OffrunError(
        "process_failed",
        `Could not discard ${name}: ${await causeOf(root, error)}. Nothing was changed: free space, then discard it again.`,
        { cause: error },
      );
    },
  );
  await discardWorktree({
    root,
    worktree: record.worktree,
    branch: record.branch,
    baseCommit: record.base,
    force: options.force,
    deleteBranch: options.deleteBranch,
  }).catch(async (error: unknown) => {
    await fs.rm(marker, { force: true });
    if (!(await ranOutOfRoom(root, error))) throw error;
    throw new OffrunError(
      "process_failed",
      `Could not discard ${name}: ${await causeOf(root, error)}. Free space, then discard it again.`,
      { cause: error },
    );
  });
  const now = new Date().toISOString();
  const updated: AgentRecord = {
    ...record,
    status: "done",
    updatedAt: now,
    discardedAt: now,
    ...(options.deleteBranch ? { branchDeleted: true } : {}),
  };
  delete updated.pid;
  try {
    injectFault("discard", record.worktree);
    await writeAgent(updated);
    await appendChat(root, name, {
      type: "notice",
      level: "info",
      message: options.deleteBranch
        ? `Discarded the worktree and branch ${record.branch}.`
        : `Discarded the worktree; branch ${record.branch} is kept.`,
      at: now,
      turn: record.turns,
    });
  } catch (error) {
    throw new OffrunError(
      "process_failed",
      `Removed ${name}'s worktree, but its record and chat could not say so: ${await causeOf(root, error)}. Run \`offrun discard ${name}${options.force ? " --force" : ""}${options.deleteBranch ? " --delete-branch" : ""}\` again to finish.`,
      { cause: error },
    );
  }
  await fs.rm(marker, { force: true });
  return { record: updated, worktreeRemoved: record.worktree, logFile: projectPaths(root).chat(name) };
}

async function exists(file: string): Promise<boolean> {
  return fs.stat(file).then(
    () => true,
    () => false,
  );
}
