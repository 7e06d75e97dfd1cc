import { listAgents, writeAgent } from "./records.js";
import { OffrunError } from "../foundation/errors.js";
import type { AgentRecord, ProjectConfig } from "../foundation/model.js";
import { slugFromPrompt } from "../foundation/names.js";
import { projectPaths } from "../foundation/paths.js";
import { allocatePort } from "../foundation/ports.js";
import type { StartRequest } from "./requests.js";

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
    createdAt: now,
    updatedAt: now,
  };
  await writeAgent(record);
  return record;
}
