import fs from "node:fs/promises";
import type { AgentRecord } from "../foundation/model.js";
import { NO_PROCESS } from "../foundation/process-identity.js";
import { git } from "../git/repo.js";
import type { RecoveryHooks } from "./recovery.js";

/**
 * A merge or a discard cut short by a crash (branch-actions.ts): git's part is done and whole, the
 * record's is not. The next companion finishes them: a branch the main checkout has merged is
 * recorded as merged, and an agent whose worktree is gone is marked done, each with a notice in its
 * chat. Returns one line for the companion's log per agent finished.
 */
export async function finishCutBranchActions(
  root: string,
  records: AgentRecord[],
  hooks: Pick<RecoveryHooks, "log" | "update">,
): Promise<string[]> {
  // A record with no base is a start cut short (start-undo.ts); a live turn is not ours to judge.
  const settled = records.filter((r) => r.base !== "" && r.status !== "working" && r.status !== "needs-you");
  if (settled.length === 0) return [];
  const said: string[] = [];
  const listed = await worktreesOf(root);
  const merged = settled.some((r) => r.mergedAt === undefined) ? await mergedBranches(root) : new Map();
  for (const record of settled) {
    const tip = merged.get(record.branch);
    if (record.mergedAt === undefined && tip !== undefined && tip !== record.base) {
      const target = (await git(root, ["branch", "--show-current"])).stdout.trim() || "HEAD";
      const now = new Date().toISOString();
      await hooks.log(record, record.turns, {
        type: "notice",
        level: "info",
        message: `${record.branch} is merged into ${target}: recorded when the companion started (the last one stopped before the merge was recorded, or the branch was merged by hand).`,
      });
      await hooks.update(record, { mergedAt: now });
      said.push(`recorded the merge of ${root}:${record.name} into ${target}: its record did not say so yet`);
    }
    if (record.status === "done" || listed.has(record.worktree) || (await exists(record.worktree))) continue;
    await hooks.log(record, record.turns, {
      type: "notice",
      level: "info",
      message: `The worktree ${record.worktree} is gone (a discard cut short when the last companion stopped, or removed by hand), so ${record.name} is marked done. The conversation stays here.`,
    });
    await hooks.update(record, { status: "done", ...NO_PROCESS });
    said.push(`marked ${root}:${record.name} done: its worktree ${record.worktree} is gone`);
  }
  return said;
}

/** Local branches the main checkout's HEAD contains, with their tips. */
async function mergedBranches(root: string): Promise<Map<string, string>> {
  const out = await git(root, ["for-each-ref", "--merged", "HEAD", "--format=%(objectname) %(refname)", "refs/heads/"]);
  const tips = new Map<string, string>();
  for (const line of out.stdout.split("\n")) {
    const [sha, ref] = line.split(" ");
    if (sha && ref?.startsWith("refs/heads/")) tips.set(ref.slice("refs/heads/".length), sha);
  }
  return tips;
}

async function worktreesOf(root: string): Promise<Set<string>> {
  const listed = await git(root, ["worktree", "list", "--porcelain", "-z"]);
  return new Set(
    listed.stdout
      .split("\0")
      .filter((line) => line.startsWith("worktree "))
      .map((line) => line.slice("worktree ".length)),
  );
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}
