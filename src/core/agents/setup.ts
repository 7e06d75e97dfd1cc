import { listAgents, writeAgent } from "./records.js";
import { describeError, OffrunError } from "../foundation/errors.js";
import type { AgentRecord, ProjectConfig } from "../foundation/model.js";
import { slugFromPrompt } from "../foundation/names.js";
import { projectPaths } from "../foundation/paths.js";
import { allocatePort } from "../foundation/ports.js";
import { createWorktree } from "../git/worktrees.js";
import { openMemoryTurn, type MemoryTurn } from "../memory/turn.js";
import type { AgentJournal } from "./journal.js";
import type { StartRequest } from "./requests.js";
import { assertSandboxAvailable } from "../sandbox/support.js";

/**
 * Picks the new agent's name (from the prompt unless given) and its stable port, and writes its
 * record before the worktree exists. The caller holds the project's lock, so two starts at once
 * never get the same name or port.
 */
export async function reserveAgent(options: {
  root: string;
  request: StartRequest;
  harness: string;
  account: string;
  config: ProjectConfig;
}): Promise<AgentRecord> {
  const { root, request, config } = options;
  const sandbox = request.sandbox ?? config.sandbox.enabled;
  // Never unsandboxed by surprise: an agent that asked for the sandbox starts in it or not at all.
  if (sandbox) await assertSandboxAvailable();
  const agents = await listAgents(root);
  const existing = new Set(agents.map((a) => a.name));
  const name = request.name ?? slugFromPrompt(request.prompt, existing);
  if (existing.has(name)) {
    throw new OffrunError("invalid_input", `An agent named '${name}' already exists here. Pick another --name.`);
  }
  const taken = new Set(agents.map((a) => a.port));
  const port = await allocatePort({ root, agent: name, range: config.portRange, taken });
  const now = new Date().toISOString();
  const record: AgentRecord = {
    version: 1,
    name,
    task: request.prompt,
    harness: options.harness,
    account: options.account,
    mode: request.mode ?? config.defaultMode ?? "build",
    model: request.model,
    project: root,
    worktree: projectPaths(root).worktree(name),
    branch: `${config.branchPrefix}${name}`,
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

/**
 * Checks out the new agent's worktree and records where it is. The memory lives in the main
 * checkout, not the worktree: the first turn's memory (files, snapshot, briefing) is opened while
 * git checks the worktree out, off the way to the spawn; undefined when that failed, and the turn
 * then tries again and says why. A failure of the worktree is logged on the agent (failed) and rethrown.
 */
export async function setUpWorktree(options: {
  root: string;
  record: AgentRecord;
  base: string | undefined;
  config: ProjectConfig;
  journal: AgentJournal;
  /** False for a Planner whose CLI cannot write even its memory folder. */
  canWriteMemory: boolean;
}): Promise<MemoryTurn | undefined> {
  const { root, record, journal } = options;
  try {
    const [created, memory] = await Promise.all([
      createWorktree({
        root,
        agent: record.name,
        base: options.base,
        config: options.config,
        port: record.port,
        logFile: projectPaths(root).log(record.name),
      }),
      openMemoryTurn(record, record.turns + 1, false, options.canWriteMemory).catch(() => undefined),
    ]);
    Object.assign(record, { worktree: created.path, branch: created.branch, base: created.baseCommit });
    if (created.baseRef) record.baseRef = created.baseRef;
    await writeAgent(record);
    return memory;
  } catch (error) {
    const kind = error instanceof OffrunError ? error.kind : "process_failed";
    await journal.update(record, { status: "failed", lastError: describeError(error) });
    await journal.log(record, 0, { type: "error", kind, message: describeError(error) });
    throw error;
  }
}
