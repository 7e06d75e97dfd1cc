import fs from "node:fs/promises";
import path from "node:path";
import { OffrunError } from "../foundation/errors.js";
import { agentEventSchema, type AgentEvent } from "../foundation/events.js";
import { agentRecordSchema, type AgentRecord } from "../foundation/model.js";
import { projectPaths } from "../foundation/paths.js";
import { reportStateProblem } from "../foundation/state-problems.js";
import { appendJsonLine, readJsonFile, readJsonl, writeJsonAtomic, type JsonlReadResult } from "../foundation/store.js";
import { isTracked, trackedStateFiles } from "../git/tracked-state.js";
import { byCodeUnits } from "../foundation/text-order.js";

/**
 * What to do with an agent record that does not read: fix it where it is. Moved aside, the agent
 * would be lost to Offrun (its record is the only one), its worktree and branch left to nobody.
 */
const RECORD_FIX = (name: string) =>
  `Fix it where it is (the error above says where). Do not move it aside: it is agent ${name}'s only record, and without it Offrun no longer knows the agent, its worktree or its branch.`;

/** Reads one agent record; throws not_found with the names that do exist. */
export async function readAgent(root: string, name: string): Promise<AgentRecord> {
  const file = projectPaths(root).agent(name);
  const record = await readJsonFile(file, agentRecordSchema, RECORD_FIX(name));
  if (!record || foreignRecord(root, name, record) || isTracked(await trackedStateFiles(root), root, file)) {
    const names = (await listAgents(root)).map((a) => a.name);
    const hint = names.length > 0 ? `Agents here: ${names.join(", ")}.` : "This project has no agents yet.";
    throw new OffrunError("not_found", `No agent named '${name}' in ${root}. ${hint}`);
  }
  return record;
}

export async function writeAgent(record: AgentRecord): Promise<void> {
  await writeJsonAtomic(projectPaths(record.project).agent(record.name), record, { fsync: false });
}

export interface AgentListing {
  agents: AgentRecord[];
  /** Records that could not be read, with the reason (they are left on disk). */
  unreadable: { file: string; problem: string }[];
}

/** All agent records of a project, newest first; unreadable records are reported, not dropped. */
export async function listAgentsDetailed(root: string): Promise<AgentListing> {
  const dir = projectPaths(root).agents;
  let files: string[];
  try {
    files = (await fs.readdir(dir)).filter((f) => f.endsWith(".json"));
  } catch {
    return { agents: [], unreadable: [] };
  }
  const listing: AgentListing = { agents: [], unreadable: [] };
  const tracked = await trackedStateFiles(root);
  const committed = (full: string) => isTracked(tracked, root, full);
  // Read all at once, then judged in order: one after another, thirty records cost `offrun ls`
  // thirty waits on the disk.
  const reads = await Promise.allSettled(
    files.map((file) =>
      committed(`${dir}/${file}`)
        ? undefined
        : readJsonFile(`${dir}/${file}`, agentRecordSchema, RECORD_FIX(file.replace(/\.json$/, ""))),
    ),
  );
  for (const [i, file] of files.entries()) {
    const full = `${dir}/${file}`;
    if (committed(full)) {
      listing.unreadable.push({ file: full, problem: COMMITTED });
      continue;
    }
    const read = reads[i]!;
    try {
      if (read.status === "rejected") throw read.reason;
      const record = read.value;
      const problem = record && foreignRecord(root, file.slice(0, -".json".length), record);
      if (problem) listing.unreadable.push({ file: full, problem });
      else if (record) listing.agents.push(record);
    } catch (error) {
      listing.unreadable.push({ file: full, problem: (error as Error).message });
      // Left on disk, and said: the other agents of the project go on.
      reportStateProblem({
        file: full,
        message: `${(error as Error).message.split("\n").join(" ")} The agent '${file.slice(0, -".json".length)}' is left out until then.`,
      });
    }
  }
  listing.agents.sort((a, b) => byCodeUnits(b.createdAt, a.createdAt));
  return listing;
}

const COMMITTED =
  "git tracks it: it came with the repository (committed by someone), so it is no agent of this machine and is left alone";

/**
 * Why a record is not this checkout's own agent, or undefined when it is. A record is input (a
 * repository can commit one, a crafted one can be left there): its name, project and worktree
 * are what Offrun itself would have written for the file it was read from, or nothing is done
 * with it (a foreign worktree would be deleted by `discard`, a foreign name read as another agent).
 */
function foreignRecord(root: string, fileName: string, record: AgentRecord): string | undefined {
  if (record.name !== fileName) return `it says it is agent '${record.name}', but its file names another`;
  if (path.resolve(record.project) !== path.resolve(root)) {
    return `it belongs to a checkout at ${record.project}, not this one (a record committed or copied from elsewhere)`;
  }
  const worktrees = projectPaths(root).worktrees;
  const relative = path.relative(worktrees, path.resolve(root, record.worktree));
  if (!path.isAbsolute(record.worktree) || relative === "" || relative.startsWith("..") || path.isAbsolute(relative)) {
    return `its worktree ${record.worktree} is not inside ${worktrees}, where Offrun puts agents' worktrees`;
  }
  return undefined;
}

export async function listAgents(root: string): Promise<AgentRecord[]> {
  return (await listAgentsDetailed(root)).agents;
}

export async function appendChat(root: string, agent: string, event: AgentEvent): Promise<void> {
  await appendJsonLine(projectPaths(root).chat(agent), event);
}

/** An agent's chat log; one git tracks came with the repository and reads as empty (see trackedStateFiles). */
export async function readChat(root: string, agent: string): Promise<JsonlReadResult<AgentEvent>> {
  const file = projectPaths(root).chat(agent);
  if (isTracked(await trackedStateFiles(root), root, file)) {
    reportStateProblem({ file, message: `${agent}'s chat log: ${COMMITTED}.` });
    return { entries: [], corrupt: [] };
  }
  return readJsonl(file, agentEventSchema);
}
