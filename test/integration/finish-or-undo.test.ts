import fs from "node:fs/promises";
import path from "node:path";
import { agentDiscard, agentMerge } from "../../src/core/agents/branch-actions.js";
import { appendChat, readAgent, readChat, writeAgent } from "../../src/core/records/records.js";
import { recoverAgents } from "../../src/core/agents/recovery.js";
import { addLogin, removeLogin } from "../../src/core/logins/changes.js";
import { renameLogin } from "../../src/core/logins/rename.js";
import { readLoginsFile } from "../../src/core/logins/logins-file.js";
import { revertMemoryChange } from "../../src/core/memory/history.js";
import { sha256, storeBlob, snapshotPaths } from "../../src/core/memory/snapshots.js";
import { rememberProject } from "../../src/core/foundation/project.js";
import type { AgentRecord } from "../../src/core/foundation/model.js";
import { git, makeRepo, makeSandbox, useSandboxInProcess, type Sandbox } from "../helpers/offrun.js";
import { agentRecord } from "../helpers/records.js";

// Operations that finish or undo what they did when a step finds the disk full (the fault point
// or the atomic write throwing ENOSPC), and say the disk is full: merge, discard, login add, rename
// and remove, memory revert. Broke: each threw the bare "ENOSPC: …" of whichever write failed,
// with its first steps left done (a merge unrecorded, a home no login names, a login renamed in
// accounts.json while its agents' records kept the old name, a memory file reverted unrecorded),
// and running it again failed ("no login 'a'").

let box: Sandbox;
let repo: string;
const savedEnv = { ...process.env };
beforeEach(async () => {
  box = await makeSandbox("offrun-undo-");
  useSandboxInProcess(box);
  repo = await makeRepo(path.join(await fs.realpath(box.dir), "app"), box.env);
  await rememberProject(repo);
  await fs.mkdir(path.join(repo, ".offrun", "chats"), { recursive: true });
});
afterEach(async () => {
  process.env = { ...savedEnv };
  await box.cleanup();
});

const exists = (file: string) =>
  fs.access(file).then(
    () => true,
    () => false,
  );
const DISK_FULL = /the disk holding \S+ is full \(\d+ KB free\)/;

/** An agent with a worktree on its own branch and one commit there, as a finished turn leaves it. */
async function agentWithWork(name: string, changes: Partial<AgentRecord> = {}): Promise<AgentRecord> {
  const base = (await git(repo, box.env, ["rev-parse", "HEAD"])).trim();
  const record = agentRecord(repo, name, { base, ...changes });
  await git(repo, box.env, ["worktree", "add", "-q", "-b", record.branch, "--", record.worktree, base]);
  await fs.writeFile(path.join(record.worktree, `${name}.txt`), "work\n");
  await git(record.worktree, box.env, ["add", "-A"]);
  await git(record.worktree, box.env, ["commit", "-q", "-m", `work of ${name}`]);
  await writeAgent(record);
  return record;
}

const recover = () =>
  recoverAgents({
    isRunning: () => false,
    scheduleWait: () => undefined,
    log: (record, turn, event) =>
      appendChat(record.project, record.name, { ...event, at: new Date().toISOString(), turn } as never),
    update: async (record, changes) => writeAgent({ ...(await readAgent(record.project, record.name)), ...changes }),
  });

test("a merge whose record cannot be written says it merged and why, and merging again records it", async () => {
  await agentWithWork("m");
  process.env.OFFRUN_FAULT = "merge:ENOSPC";
  const failed = await agentMerge(repo, "m").catch((error: Error) => error);
  expect(failed).toBeInstanceOf(Error);
  expect((failed as Error).message).toMatch(/^Merged offrun\/m into main \([0-9a-f]{8}\), but m's record/);
  expect((failed as Error).message).toMatch(DISK_FULL);
  expect((failed as Error).message).toContain("Run `offrun merge m` again");
  delete process.env.OFFRUN_FAULT;
  await agentMerge(repo, "m");
  expect((await readAgent(repo, "m")).mergedAt).toBeDefined();
  const notices = (await readChat(repo, "m")).entries.filter((e) => e.type === "notice");
  expect(notices).toEqual([expect.objectContaining({ message: expect.stringMatching(/^Merged offrun\/m into main/) })]);
});

test("a merge cut short by a crash after git merged is recorded by the next companion", async () => {
  await agentWithWork("cut");
  await git(repo, box.env, ["merge", "-q", "--no-ff", "--no-edit", "offrun/cut"]);
  expect(await recover()).toEqual([expect.stringMatching(/^recorded the merge of .*:cut into main/)]);
  expect((await readAgent(repo, "cut")).mergedAt).toBeDefined();
  // Once: the next start finds it recorded.
  expect(await recover()).toEqual([]);
});

test("a discard whose record cannot be written says the worktree is gone and why; discarding again finishes", async () => {
  const record = await agentWithWork("d");
  process.env.OFFRUN_FAULT = "discard:ENOSPC";
  const failed = await agentDiscard(repo, "d", { force: true, deleteBranch: false }).catch((error: Error) => error);
  expect((failed as Error).message).toMatch(/^Removed d's worktree, but its record/);
  expect((failed as Error).message).toMatch(DISK_FULL);
  expect((failed as Error).message).toContain("Run `offrun discard d --force` again to finish.");
  expect(await exists(record.worktree)).toBe(false);
  delete process.env.OFFRUN_FAULT;
  await agentDiscard(repo, "d", { force: true, deleteBranch: false });
  expect((await readAgent(repo, "d")).status).toBe("done");
});

test("a discard cut short by a crash after the worktree went is finished by the next companion", async () => {
  const record = await agentWithWork("gone");
  // As a discard killed between its two steps leaves it: its marker, the worktree removed.
  process.env.OFFRUN_FAULT = "discard:ECRASH";
  await agentDiscard(repo, "gone", { force: true, deleteBranch: false }).catch(() => undefined);
  delete process.env.OFFRUN_FAULT;
  expect(await exists(record.worktree)).toBe(false);
  expect(await recover()).toEqual([expect.stringMatching(/^finished the discard of .*:gone/)]);
  expect((await readAgent(repo, "gone")).status).toBe("done");
  const chat = (await readChat(repo, "gone")).entries;
  expect(chat).toEqual([
    expect.objectContaining({ type: "notice", message: expect.stringMatching(/^Discarded the worktree/) }),
  ]);
});

test("a worktree removed by hand is not taken for a discard", async () => {
  const record = await agentWithWork("by-hand");
  await git(repo, box.env, ["worktree", "remove", "--force", record.worktree]);
  expect(await recover()).toEqual([]);
  expect((await readAgent(repo, "by-hand")).status).toBe("idle");
});

test("a login add on a full disk removes the home it made and says the disk is full", async () => {
  process.env.OFFRUN_FAULT = "atomic:ENOSPC:accounts.json";
  const failed = await addLogin({ harness: "claude", label: "work" }).catch((error: Error) => error);
  expect((failed as Error).message).toMatch(
    /^Could not add login 'work': the disk holding .* is full .*Nothing was changed/,
  );
  expect(await exists(path.join(box.offrunHome, "accounts", "claude", "work"))).toBe(false);
  expect(await fs.readdir(path.join(box.offrunHome, "pending-logins")).catch(() => [])).toEqual([]);
});

test("a login rename cut by a full disk at the agents' records is finished by running it again", async () => {
  await addLogin({ harness: "claude", label: "a" });
  await writeAgent(agentRecord(repo, "on-a", { account: "a" }));
  process.env.OFFRUN_FAULT = "atomic:ENOSPC:.offrun/agents/";
  const failed = await renameLogin({ harness: "claude", label: "a", to: "b" }).catch((error: Error) => error);
  expect((failed as Error).message).toMatch(/^Renamed login 'a' to 'b' in accounts\.json, but/);
  expect((failed as Error).message).toMatch(DISK_FULL);
  expect((failed as Error).message).toContain("run `offrun logins rename claude a b` again");
  delete process.env.OFFRUN_FAULT;
  const again = await renameLogin({ harness: "claude", label: "a", to: "b" });
  expect(again.agents).toEqual(["on-a"]);
  expect((await readAgent(repo, "on-a")).account).toBe("b");
  expect((await readLoginsFile(process.env)).accounts.map((a) => a.label)).toEqual(["b"]);
  expect(await fs.readdir(path.join(box.offrunHome, "pending-logins"))).toEqual([]);
});

test("a login removal on a full disk changes nothing, keeps the home, and says the disk is full", async () => {
  const login = await addLogin({ harness: "claude", label: "old" });
  process.env.OFFRUN_FAULT = "atomic:ENOSPC:accounts.json";
  const failed = await removeLogin({ harness: "claude", label: "old", purge: true }).catch((e: Error) => e);
  expect((failed as Error).message).toMatch(/^Could not remove login 'old': the disk holding .* is full/);
  delete process.env.OFFRUN_FAULT;
  expect((await readLoginsFile(process.env)).accounts.map((a) => a.label)).toEqual(["old"]);
  expect(await exists(login.home)).toBe(true);
  expect(await fs.readdir(path.join(box.offrunHome, "pending-logins"))).toEqual([]);
});

test("a memory revert that cannot be recorded puts the file back and says the disk is full", async () => {
  await writeAgent(agentRecord(repo, "mem"));
  const file = path.join(repo, ".offrun", "memory", "mem", "plan.md");
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.mkdir(snapshotPaths(repo).blobs, { recursive: true });
  const [before, after] = ["# Plan\n\nfirst\n", "# Plan\n\nsecond\n"];
  for (const text of [before, after]) await storeBlob(repo, sha256(text), text);
  await fs.writeFile(file, after);
  await appendChat(repo, "mem", {
    type: "memory_change",
    id: "m1.1",
    file: ".offrun/memory/mem/plan.md",
    who: "own",
    diff: "-first\n+second\n",
    before: sha256(before),
    after: sha256(after),
    at: new Date().toISOString(),
    turn: 1,
  });
  process.env.OFFRUN_FAULT = "atomic:ENOSPC:recorded.json";
  const failed = await revertMemoryChange(repo, "mem", "m1.1").catch((error: Error) => error);
  expect((failed as Error).message).toMatch(
    /^Could not revert memory change m1\.1 of mem: the disk holding .* is full/,
  );
  expect((failed as Error).message).toContain("The file is as it was before; nothing was changed.");
  expect(await fs.readFile(file, "utf8")).toBe(after);
  delete process.env.OFFRUN_FAULT;
  expect((await revertMemoryChange(repo, "mem", "m1.1")).outcome).toBe("reverted");
  expect(await fs.readFile(file, "utf8")).toBe(before);
});
