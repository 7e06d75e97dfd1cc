import fs from "node:fs/promises";
import path from "node:path";
import { describeError, isOffrunError } from "../foundation/errors.js";
import { projectPaths } from "../foundation/paths.js";
import { visible } from "../foundation/visible.js";
import { isAlive, signalGroup } from "../foundation/pids.js";
import { isSameProcess, NO_PROCESS } from "../foundation/process-identity.js";
import { knownProjects, loadProjectConfig } from "../foundation/project.js";
import { reportStateProblem } from "../foundation/state-problems.js";
import { git } from "../git/repo.js";
import { removeScratch } from "../git/review-scratch.js";
import { listAgents } from "../records/records.js";
import { recoverGitTurn } from "../sandbox/git-turn.js";
import { isUnfinishedStart, undoUnfinishedStart } from "./start-undo.js";
import { finishCutBranchActions, type RecoveryWrites } from "./branch-recovery.js";

export interface RecoveryHooks extends RecoveryWrites {
  /** True when this companion runs a turn of the agent (it is not orphaned). */
  isRunning(root: string, name: string): boolean;
  /** Arms the wait of an agent limited until a reset. */
  scheduleWait(root: string, name: string, at: string): void;
}

/**
 * After a crash or kill -9 of an earlier companion: any agent still marked working has no
 * process reporting to anyone. End its orphaned CLI, and close its turn as interrupted. A wait
 * for a reset outlives the companion that armed it, so it is armed again. Review scratch
 * worktrees that companion left behind are removed. A start cut short (start-undo.ts) is undone,
 * as a failed start is; a merge or discard cut short is finished (branch-recovery.ts). Returns one
 * line for the companion's log per agent recovered.
 */
export async function recoverAgents(hooks: RecoveryHooks): Promise<string[]> {
  const recovered: string[] = [];
  for (const root of await knownProjects()) {
    await reportDamagedConfig(root);
    for (const record of await listAgents(root).catch(() => [])) {
      if (record.resume && record.status === "limited") hooks.scheduleWait(root, record.name, record.resume.at);
      if ((record.status !== "working" && record.status !== "needs-you") || hooks.isRunning(root, record.name))
        continue;
      if (isUnfinishedStart(record)) {
        const left = await undoUnfinishedStart(record);
        const tail = left.length === 0 ? "nothing was left behind" : `could not remove: ${left.join("; ")}`;
        recovered.push(
          `undid the start of ${root}:${record.name}: the last companion stopped before its worktree was made (${tail}); its task was: ${visible(record.task, "line")}`,
        );
        continue;
      }
      // Only the CLI this record started: a pid from a crafted or committed record, or one the
      // system has given to another process since, is left alone.
      if (record.pid !== undefined && isAlive(record.pid) && (await isSameProcess(record.pid, record.pidStartTime))) {
        signalGroup(record.pid, "SIGTERM");
      }
      // A sandboxed turn's new git objects wait in quarantine: checked and moved in, or refused.
      for (const message of await recoverGitTurn(record).catch(() => [])) {
        await hooks.log(record, record.turns, { type: "notice", level: "warning", message });
      }
      const reason = "The companion stopped during this turn. Send a message to continue the same session.";
      await hooks.log(record, record.turns, { type: "turn_end", outcome: "interrupted", reason });
      await hooks.update(record, { status: "failed", lastError: reason, ...NO_PROCESS });
      recovered.push(`marked ${root}:${record.name} interrupted: its turn was running when the last companion stopped`);
    }
    const listed = await listAgents(root).catch(() => []);
    recovered.push(
      ...(await finishCutBranchActions(root, listed, hooks).catch((error: unknown) => [
        `could not finish the merges and discards cut short in ${root}: ${describeError(error)}`,
      ])),
    );
    // Reviews run only in a companion and requests wait for recovery: a scratch left now is the last one's.
    await removeLeftoverScratches(root).catch(() => undefined);
  }
  return recovered;
}

/** The `.worktrees/.review-*` scratches of a project: folders still there, and ones git still lists. */
async function removeLeftoverScratches(root: string): Promise<void> {
  const dir = projectPaths(root).worktrees;
  const isScratch = (p: string) => path.dirname(p) === dir && path.basename(p).startsWith(".review-");
  const folders = (await fs.readdir(dir).catch(() => [])).map((name) => path.join(dir, name));
  const listed = (await git(root, ["worktree", "list", "--porcelain", "-z"])).stdout
    .split("\0")
    .filter((line) => line.startsWith("worktree "))
    .map((line) => line.slice("worktree ".length));
  for (const scratch of new Set([...folders, ...listed].filter(isScratch))) await removeScratch(root, scratch);
}

/**
 * A damaged `.offrun/config.json` is named at the companion's start (state-problems.ts), not first
 * when the next agent of that project starts; the other projects are not concerned.
 */
async function reportDamagedConfig(root: string): Promise<void> {
  await loadProjectConfig(root).catch((error: unknown) => {
    if (!isOffrunError(error, "invalid_file")) return;
    const message = `${error.message.split("\n").join(" ")} Until then, agents of ${root} cannot start or take a message.`;
    // eslint-disable-next-line no-restricted-syntax -- names the file in the report; the read is loadProjectConfig's
    reportStateProblem({ file: projectPaths(root).config, message });
  });
}
