import fs from "node:fs/promises";
import { listAgents, writeAgent } from "../records/records.js";
import { OffrunError } from "../foundation/errors.js";
import type { AgentRecord, ProjectConfig } from "../foundation/model.js";
import { slugFromPrompt } from "../foundation/names.js";
import { projectPaths } from "../foundation/paths.js";
import { allocatePort } from "../foundation/ports.js";
import { trackedStateFiles } from "../git/tracked-state.js";
import { BranchTakenError, createWorktree, type StartPoint } from "../git/worktrees.js";
import { openMemoryTurn, type MemoryTurn } from "../memory/turn.js";
import type { AgentJournal } from "./journal.js";
import type { StartRequest } from "../protocol/requests.js";
import { assertSandboxAvailable } from "../sandbox/support.js";
import { lookBeforeCheckout, undoFailedStart } from "./start-undo.js";

/**
 * Picks the new agent's name (from the prompt unless given) and its stable port, and writes its
 * record before the worktree exists. The caller holds the project's lock, so two starts at once
 * never get the same name or port.
 */
export async function reserveAgent(options: {
  root: string;
  request: StartRequest;
  harness: string;
  login: string;
  config: ProjectConfig;
  /** The names whose branch exists already (lookBeforeStart), asked before the lock. */
  branches: ReadonlySet<string>;
}): Promise<AgentRecord> {
  const { root, request, config } = options;
  const sandbox = request.sandbox ?? config.sandbox.enabled;
  // Never unsandboxed by surprise: an agent that asked for the sandbox starts in it or not at all.
  // Read together: each is a few file reads, and the start waits for all of them.
  const [agents, tracked] = await Promise.all([
    listAgents(root),
    trackedStateFiles(root),
    sandbox ? assertSandboxAvailable() : undefined,
  ]);
  // A name whose record or chat log the repository commits is taken too: the new agent's chat
  // would otherwise be appended to a file that is ignored (and the commit's own lines read as its).
  const committed = committedNames(tracked);
  const existing = new Set([...agents.map((a) => a.name), ...committed]);
  const name = request.name ?? slugFromPrompt(request.prompt, new Set([...existing, ...options.branches]));
  if (committed.has(name)) {
    throw new OffrunError(
      "invalid_input",
      `The repository commits a record or chat log named '${name}' under .offrun/; pick another --name.`,
    );
  }
  if (existing.has(name)) {
    throw new OffrunError("invalid_input", `An agent named '${name}' already exists here. Pick another --name.`);
  }
  // Before the record exists: a record of a start cut short then names a branch only that start's
  // git can have made (start-undo.ts), and a taken branch is refused with nothing to undo.
  const branch = `${config.branchPrefix}${name}`;
  if (options.branches.has(name)) throw new BranchTakenError(branch);
  const taken = new Set(agents.map((a) => a.port));
  const port = await allocatePort({ root, agent: name, range: config.portRange, taken });
  const now = new Date().toISOString();
  const record: AgentRecord = {
    version: 1,
    name,
    task: request.prompt,
    harness: options.harness,
    account: options.login,
    mode: request.mode ?? config.defaultMode ?? "build",
    model: request.model,
    project: root,
    worktree: projectPaths(root).worktree(name),
    branch,
    base: "",
    port,
    status: "working",
    turns: 0,
    ...(sandbox ? { sandbox } : {}),
    createdAt: now,
    updatedAt: now,
  };
  await writeAgent(record);
  return record;
}

/** The agent names that the tracked state files (`.offrun/agents/x.json`, `.offrun/chats/x.jsonl`) use. */
function committedNames(tracked: ReadonlySet<string>): Set<string> {
  const names = new Set<string>();
  for (const file of tracked) {
    const name = /^\.offrun\/(?:agents\/([^/]+)\.json|chats\/([^/]+)\.jsonl)$/.exec(file);
    if (name) names.add(name[1] ?? name[2]!);
  }
  return names;
}

/**
 * Checks out the new agent's worktree and records where it is. The memory lives in the main
 * checkout, not the worktree: the first turn's memory (files, snapshot, briefing) is opened while
 * git checks the worktree out, off the way to the spawn; undefined when that failed, and the turn
 * then tries again and says why. A failed setup keeps its worktree, logged on the agent (failed); any
 * other failure is undone. Either way the error is rethrown, saying which.
 */
export async function setUpWorktree(options: {
  root: string;
  record: AgentRecord;
  /** The commit to start from, resolved before the record was written. */
  base: StartPoint;
  config: ProjectConfig;
  journal: AgentJournal;
  /** False for a Planner whose CLI cannot write even its memory folder. */
  canWriteMemory: boolean;
}): Promise<MemoryTurn | undefined> {
  const { root, record, journal } = options;
  const before = await lookBeforeCheckout(record);
  const opening = openMemoryTurn(record, record.turns + 1, false, options.canWriteMemory).catch(() => undefined);
  try {
    const created = await createWorktree({
      root,
      agent: record.name,
      base: options.base,
      config: options.config,
      port: record.port,
      logFile: projectPaths(root).log(record.name),
    }).catch(async (error: unknown) => {
      await opening; // done writing before an undo removes what it made
      throw error;
    });
    const memory = await opening;
    Object.assign(record, { worktree: created.path, branch: created.branch, base: created.baseCommit });
    if (created.baseRef) record.baseRef = created.baseRef;
    await writeAgent(record);
    return memory;
  } catch (failure) {
    // Undone, or kept for inspection and said so (start-undo.ts): never half made and unexplained.
    const error = await undoFailedStart(record, before, failure);
    if (await recordExists(record)) {
      await journal.update(record, { status: "failed", lastError: error.message });
      await journal.log(record, 0, { type: "error", kind: error.kind, message: error.message });
    }
    throw error;
  }
}

async function recordExists(record: AgentRecord): Promise<boolean> {
  return fs.access(projectPaths(record.project).agent(record.name)).then(
    () => true,
    () => false,
  );
}
