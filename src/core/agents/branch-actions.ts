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
  });
  injectFault("merge", record.worktree);
  const now = new Date().toISOString();
  await writeAgent({ ...record, mergedAt: now, updatedAt: now });
  await appendChat(root, name, {
    type: "notice",
    level: "info",
    message: `Merged ${record.branch} into ${result.mergedInto} (${result.commit.slice(0, 8)}).`,
    at: now,
    turn: record.turns,
  });
  return { record, ...result };
}

export async function agentDiscard(project: string, name: string, options: { force: boolean; deleteBranch: boolean }) {
  const root = await findRepoRoot(project);
  const record = await readAgent(root, name);
  if (!options.force) refuseWhileWorking(record, "discard it");
  await discardWorktree({
    root,
    worktree: record.worktree,
    branch: record.branch,
    baseCommit: record.base,
    force: options.force,
    deleteBranch: options.deleteBranch,
  });
  const now = new Date().toISOString();
  const updated: AgentRecord = { ...record, status: "done", updatedAt: now };
  delete updated.pid;
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
  return { record: updated, worktreeRemoved: record.worktree, logFile: projectPaths(root).chat(name) };
}
