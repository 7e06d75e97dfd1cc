import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import { recoverAgents } from "../../src/core/agents/recovery.js";
import { writeAgent } from "../../src/core/records/records.js";
import type { AgentRecord } from "../../src/core/foundation/model.js";
import { isAlive } from "../../src/core/foundation/pids.js";
import { processStartTime } from "../../src/core/foundation/process-identity.js";
import { rememberProject } from "../../src/core/foundation/project.js";
import { eventually } from "../helpers/offrun.js";
import { agentRecord } from "../helpers/records.js";

// A committed or crafted record "working" with a pid made the companion SIGTERM
// that process group at start. Recovery now ends only the process the record started (pid plus
// its start time); a stranger with that pid survives, and the turn is closed all the same.

let root: string;
beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "offrun-pid-")));
  await fs.mkdir(path.join(root, ".offrun", "agents"), { recursive: true });
  await rememberProject(root);
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

/** A process in a group of its own, as an agent CLI is, that sleeps until killed. */
function sleeper() {
  return execa("sleep", ["300"], { detached: true, reject: false, timeout: 300_000 });
}

async function recover(record: AgentRecord): Promise<AgentRecord[]> {
  const updates: AgentRecord[] = [];
  await writeAgent(record);
  await recoverAgents({
    isRunning: () => false,
    scheduleWait: () => undefined,
    log: async () => undefined,
    update: async (current, changes) => void updates.push({ ...current, ...changes }),
  });
  return updates;
}

test("a record's pid that is not the process it started is left alone; its turn is closed", async () => {
  const stranger = sleeper();
  try {
    const updates = await recover(agentRecord(root, "planted", { status: "working", pid: stranger.pid! }));
    expect(updates).toEqual([expect.objectContaining({ name: "planted", status: "failed", pid: undefined })]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(isAlive(stranger.pid!)).toBe(true);
  } finally {
    stranger.kill("SIGKILL");
  }
});

test("the CLI the record started (same pid, same start time) is ended", async () => {
  const orphan = sleeper();
  try {
    const pidStartTime = await processStartTime(orphan.pid!);
    expect(pidStartTime).toBeDefined();
    await recover(agentRecord(root, "orphan", { status: "working", pid: orphan.pid!, pidStartTime: pidStartTime! }));
    await eventually(async () => (isAlive(orphan.pid!) ? undefined : true), 10_000, "the orphan to end");
  } finally {
    orphan.kill("SIGKILL");
  }
});
