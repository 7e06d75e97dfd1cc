import fs from "node:fs/promises";
import path from "node:path";
import { projectPaths } from "../foundation/paths.js";
import type { AgentRecord } from "../foundation/model.js";
import { NO_PROCESS } from "../foundation/process-identity.js";
import { git } from "../git/repo.js";
import type { EventDraft } from "../foundation/events.js";

/** How recovery writes an agent's log and record (the companion's recovery hooks are these and more). */
export interface RecoveryWrites {
  log(record: AgentRecord, turn: number, event: EventDraft): Promise<void>;
  update(record: AgentRecord, changes: Partial<AgentRecord>): Promise<void>;
}

/**
 * A merge or a discard cut short by a crash (branch-actions.ts): git's part is done and whole, the
 * record's is not. The next companion finishes them: a branch the main checkout has merged is
 * recorded as merged, and a discard whose worktree went (its marker says one was under way) is
 * marked done, each with a notice in the agent's chat. Returns one line for the companion's log per
 * agent finished.
 */
export async function finishCutBranchActions(
  root: string,
  records: AgentRecord[],
  hooks: RecoveryWrites,
): Promise<string[]> {
  // A record with no base is a start cut short (start-undo.ts); a live turn is not ours to judge.
  const settled = records.filter((r) => r.base !== "" && r.status !== "working" && r.status !== "needs-you");
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
  }
  said.push(...(await finishCutDiscards(root, records, listed, hooks)));
  return said;
}

/** `.offrun/agents/discarding/<agent>`: a discard under way ("delete-branch" when it deletes the branch too). */
export function discardMarker(root: string, agent: string): string {
  return path.join(projectPaths(root).agents, "discarding", agent);
}

/** Discards cut short: one whose worktree went is marked done; one that never got that far is dropped. */
async function finishCutDiscards(
  root: string,
  records: AgentRecord[],
  listed: Set<string>,
  hooks: RecoveryWrites,
): Promise<string[]> {
  const said: string[] = [];
  const dir = path.dirname(discardMarker(root, "x"));
  for (const name of await fs.readdir(dir).catch(() => [] as string[])) {
    const marker = path.join(dir, name);
    const record = records.find((r) => r.name === name);
    const deleteBranch = (await fs.readFile(marker, "utf8").catch(() => "")).startsWith("delete-branch");
    if (record && record.status !== "done" && !listed.has(record.worktree) && !(await exists(record.worktree))) {
      const branchLeft =
        deleteBranch &&
        (await git(root, ["show-ref", "--verify", "--quiet", `refs/heads/${record.branch}`], { okExitCodes: [1] }))
          .exitCode === 0;
      const branch = branchLeft
        ? ` Its branch ${record.branch} is still there: delete it with \`git branch -D ${record.branch}\`.`
        : "";
      await hooks.log(record, record.turns, {
        type: "notice",
        level: "info",
        message: `Discarded the worktree (the discard was finished when the companion started: the last one stopped before it was recorded).${branch}`,
      });
      await hooks.update(record, {
        status: "done",
        ...NO_PROCESS,
        discardedAt: new Date().toISOString(),
        ...(deleteBranch && !branchLeft ? { branchDeleted: true } : {}),
      });
      said.push(`finished the discard of ${root}:${name}: its worktree was gone, its record now says so`);
    } else if (record && record.status !== "done") {
      said.push(
        `a discard of ${root}:${name} was cut short before its worktree was removed; nothing else changed (\`offrun discard ${name}\` again to discard it)`,
      );
    }
    await fs.rm(marker, { force: true });
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
