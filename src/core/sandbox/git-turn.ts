import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import type { AgentRecord } from "../foundation/model.js";
import { userPaths } from "../foundation/paths.js";
import { admitQuarantine, quarantineEnv, quarantineOf } from "../git/quarantine.js";
import { git } from "../git/repo.js";
import { listAgents } from "../records/records.js";
import { gitScope, refFolders } from "./git-scope.js";
import type { GitScope } from "./policy.js";

/**
 * A sandboxed turn's part of the git folder, before and after it: the quarantine its new objects
 * go to (git/quarantine.ts), and the folder of the branch's ref, which the turn must be able to
 * write (a commit writes `<agent>.lock` there and renames it), so it can also make other files
 * there. Another agent's ref is held read-only (git-scope.ts); anything new there that no agent
 * of the project owns is removed when the turn is over: git would read it as a branch.
 */

type Agent = Pick<AgentRecord, "project" | "name" | "worktree"> & { branch?: string; base?: string };

/** `~/.offrun/sandbox/<project>-<hash>/<agent>`: the policy and the agent's temp folder, outside its reach. */
export function sandboxFolder(record: Pick<AgentRecord, "project" | "name">): string {
  const hash = createHash("sha256").update(record.project).digest("hex").slice(0, 10);
  return path.join(userPaths().home, "sandbox", `${path.basename(record.project)}-${hash}`, record.name);
}

/**
 * The branch's commit that is known whole, kept where the sandbox can neither read nor write it
 * (beside the turn's policy): the commit a quarantine's check falls back to, after a crash too.
 */
const verifiedFile = (record: Pick<AgentRecord, "project" | "name">) =>
  path.join(sandboxFolder(record), "verified-commit");

/** What the branch's ref folders held when the turn began (their paths), kept there too. */
const refsAtOpenFile = (record: Pick<AgentRecord, "project" | "name">) =>
  path.join(sandboxFolder(record), "refs-at-open.json");

/**
 * Before a sandboxed turn: a quarantine left by a turn whose check did not finish is checked
 * first (its objects may be the branch's), then made empty; the branch's commit now, which
 * nothing in a sandbox has touched since the last check; and what the ref folders hold. Returns
 * the turn's git environment, the verified commit, and what a leftover's check said.
 */
export async function openGitTurn(
  record: Agent,
  scope: GitScope,
): Promise<{ env: Record<string, string>; verified: string; said: string[] }> {
  const dir = quarantineOf(scope.gitDir);
  const said = (await fs.readdir(dir).catch(() => [])).length > 0 ? await recoverGitTurn(record, scope) : [];
  await fs.rm(dir, { recursive: true, force: true });
  await fs.mkdir(dir, { recursive: true });
  const tip = (
    await git(scope.commonDir, ["rev-parse", "--verify", "-q", `${branchRefName(scope)}^{commit}`], {
      okExitCodes: [1],
    })
  ).stdout.trim();
  // A branch that is not there yet (it always is, from the start on) falls back to where it began.
  const verified =
    tip || record.base || (await git(record.worktree, ["rev-parse", "--verify", "HEAD^{commit}"])).stdout.trim();
  await fs.writeFile(verifiedFile(record), `${verified}\n`, { mode: 0o600 });
  await fs.writeFile(refsAtOpenFile(record), JSON.stringify(await refEntries(scope)), { mode: 0o600 });
  return { env: quarantineEnv(scope.commonDir, scope.gitDir), verified, said };
}

/**
 * After a sandboxed turn (or, after a crash, in the next companion's recovery): the quarantine's
 * objects checked and moved in, the branch checked, refs the turn made beside its own removed;
 * what was refused or removed, said for the turn's log. Never throws.
 */
export async function closeGitTurn(record: Agent, scope: GitScope, verified: string): Promise<string[]> {
  return [...(await closeQuarantine(record, scope, verified)), ...(await removeNewRefs(record, scope))];
}

/**
 * The next companion's part after a crash during a sandboxed turn (and the next turn's, after a
 * check that did not finish): the quarantine it left is checked and moved in, or refused, against
 * the last verified commit. Says what it did, or nothing.
 */
export async function recoverGitTurn(
  record: Agent & Partial<Pick<AgentRecord, "sandbox" | "mode">>,
  known?: GitScope,
): Promise<string[]> {
  if (!known && (!record.sandbox || record.mode === "plan" || !record.branch)) return [];
  const scope = known ?? (await gitScope(record.worktree, record.branch).catch(() => undefined));
  if (!scope) return [];
  const saved = (await fs.readFile(verifiedFile(record), "utf8").catch(() => "")).trim();
  const verified = /^[0-9a-f]{40,64}$/.test(saved) ? saved : (record.base ?? "");
  return closeGitTurn(record, scope, verified);
}

/** `refs/heads/offrun/<agent>`, from the branch's loose ref file. */
function branchRefName(scope: GitScope): string {
  return path.relative(scope.commonDir, scope.branchRef).split(path.sep).join("/");
}

async function closeQuarantine(record: Agent, scope: GitScope, verified: string): Promise<string[]> {
  try {
    const admission = await admitQuarantine({
      commonDir: scope.commonDir,
      gitDir: scope.gitDir,
      worktree: record.worktree,
      branchRef: branchRefName(scope),
      verified,
    });
    await fs.writeFile(verifiedFile(record), `${admission.tip}\n`, { mode: 0o600 });
    const said = admission.refused.map(
      (line) => `The sandbox kept a git object the turn wrote out of the repository: ${line}.`,
    );
    if (admission.reset) {
      said.push(
        `${record.branch} pointed at ${admission.reset.from.slice(0, 12)}, whose objects are not all in the repository and whole; Offrun set it back to ${admission.reset.to.slice(0, 12)}, its last verified commit. The worktree's files are as the turn left them.`,
      );
    }
    if (admission.indexRebuilt) {
      said.push(
        `The worktree's git index named objects Offrun kept out; it was rebuilt from ${admission.tip.slice(0, 12)}, and the files the turn changed show as changes (git status).`,
      );
    }
    return said;
  } catch (error) {
    return [
      `The sandbox could not check the git objects the turn wrote: ${error instanceof Error ? error.message : String(error)}. They wait in ${quarantineOf(scope.gitDir)}; nothing of them is in the repository yet.`,
    ];
  }
}

/** Every path under the branch's ref folder and its log folder (folders too). */
async function refEntries(scope: GitScope): Promise<string[]> {
  const all: string[] = [];
  for (const folder of refFolders(scope)) {
    const entries = await fs.readdir(folder, { recursive: true, withFileTypes: true }).catch(() => []);
    all.push(...entries.map((entry) => path.join(entry.parentPath, entry.name)));
  }
  return all;
}

/**
 * What the turn made in the ref folders beside its own ref and log: removed, unless it is the
 * branch of an agent of the project (one started while the turn ran: its record is written before
 * its branch). Only the topmost new path of each is removed (a new folder goes whole).
 */
async function removeNewRefs(record: Agent, scope: GitScope): Promise<string[]> {
  let before: string[];
  try {
    before = JSON.parse(await fs.readFile(refsAtOpenFile(record), "utf8")) as string[];
  } catch {
    return [];
  }
  const known = new Set(before);
  const folders = refFolders(scope);
  const agents = new Set((await listAgents(record.project).catch(() => [])).map((agent) => agent.name));
  const ownName = path.basename(scope.branchRef);
  const said: string[] = [];
  for (const entry of await refEntries(scope)) {
    if (known.has(entry) || (!known.has(path.dirname(entry)) && !folders.includes(path.dirname(entry)))) continue;
    const name = path.basename(entry);
    if (name === ownName || name === `${ownName}.lock` || agents.has(name)) continue;
    await fs.rm(entry, { recursive: true, force: true });
    said.push(
      `The turn made ${path.relative(scope.commonDir, entry)} in the git folder, beside its branch's ref; Offrun removed it (git would read it as a branch, and a sandboxed turn writes its own branch only).`,
    );
  }
  await fs.rm(refsAtOpenFile(record), { force: true });
  return said;
}
