import path from "node:path";
import type { AgentRecord } from "../../src/core/foundation/model.js";

/** An agent record as the companion writes one, for a test to put on disk or hand to a view; `changes` set any field. */
export function agentRecord(project: string, name: string, changes: Partial<AgentRecord> = {}): AgentRecord {
  const at = new Date().toISOString();
  return {
    version: 1,
    name,
    task: `task of ${name}`,
    harness: "claude",
    account: "default",
    mode: "build",
    project,
    worktree: path.join(project, ".worktrees", name),
    branch: `offrun/${name}`,
    base: "0".repeat(40),
    port: 41000,
    status: "idle",
    turns: 1,
    createdAt: at,
    updatedAt: at,
    ...changes,
  };
}
