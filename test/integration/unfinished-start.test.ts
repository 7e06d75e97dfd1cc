import fs from "node:fs/promises";
import path from "node:path";
import { writeAgent } from "../../src/core/records/records.js";
import { recoverAgents } from "../../src/core/agents/recovery.js";
import { rememberProject } from "../../src/core/foundation/project.js";
import { git, makeRepo, makeSandbox, useSandboxInProcess, type Sandbox } from "../helpers/offrun.js";
import { agentRecord } from "../helpers/records.js";

// A start either completes or is undone. A companion killed between an agent's record
// and its worktree's being recorded (the record has no base, no turn ran) left a record that a
// message then ran in a worktree that was never made ("Claude exited with code unknown"). The
// next companion undoes such a start, as a failed start is undone, and says so in its log.

let box: Sandbox;
let repo: string;
const savedEnv = { ...process.env };
beforeEach(async () => {
  box = await makeSandbox("offrun-unfinished-");
  useSandboxInProcess(box);
  repo = await makeRepo(path.join(await fs.realpath(box.dir), "app"), box.env);
  await rememberProject(repo);
});
afterEach(async () => {
  process.env = { ...savedEnv };
  await box.cleanup();
});

const recover = () =>
  recoverAgents({
    isRunning: () => false,
    scheduleWait: () => undefined,
    log: async () => undefined,
    update: async () => undefined,
  });
const exists = (file: string) =>
  fs.access(file).then(
    () => true,
    () => false,
  );

test("a start cut after git made its worktree is undone: worktree, branch, record and logs", async () => {
  const record = agentRecord(repo, "cut", { status: "working", turns: 0, base: "" });
  await writeAgent(record);
  await fs.mkdir(path.join(repo, ".offrun", "chats"), { recursive: true });
  await fs.writeFile(path.join(repo, ".offrun", "chats", "cut.jsonl"), "");
  await git(repo, box.env, ["worktree", "add", "-q", "--no-track", "-b", record.branch, "--", record.worktree, "HEAD"]);

  const said = await recover();
  expect(said).toEqual([expect.stringMatching(/^undid the start of .*:cut: .*nothing was left behind.*task of cut$/)]);
  expect(await exists(path.join(repo, ".offrun", "agents", "cut.json"))).toBe(false);
  expect(await exists(path.join(repo, ".offrun", "chats", "cut.jsonl"))).toBe(false);
  expect(await exists(record.worktree)).toBe(false);
  expect((await git(repo, box.env, ["branch", "--list", record.branch])).trim()).toBe("");
  expect(await git(repo, box.env, ["worktree", "list"])).not.toContain(".worktrees");
});

test("a start cut before its worktree leaves a branch of that name with commits of its own alone", async () => {
  const record = agentRecord(repo, "early", { status: "working", turns: 0, base: "" });
  await writeAgent(record);
  const elsewhere = path.join(box.dir, "elsewhere");
  await git(repo, box.env, ["worktree", "add", "-q", "-b", record.branch, "--", elsewhere, "HEAD"]);
  await fs.writeFile(path.join(elsewhere, "mine.txt"), "mine\n");
  await git(elsewhere, box.env, ["add", "mine.txt"]);
  await git(elsewhere, box.env, ["commit", "-q", "-m", "mine"]);
  await git(repo, box.env, ["worktree", "remove", "--force", elsewhere]);
  expect(await recover()).toEqual([expect.stringContaining("undid the start of")]);
  expect(await exists(path.join(repo, ".offrun", "agents", "early.json"))).toBe(false);
  expect((await git(repo, box.env, ["branch", "--list", record.branch])).trim()).toContain(record.branch);
});

// Broke (the crash matrix, atomic-21-KILL in CI): the companion was killed while `git worktree add
// -b` ran beside the first turn's memory snapshot; git, writing to the closed pipe, died after
// making the branch and before registering the worktree, and the undo kept that branch as "not
// this start's". A start refuses a taken branch before its record exists, so it can only be git's.
test("a start cut while git made the branch but not yet the worktree removes that branch", async () => {
  const record = agentRecord(repo, "midway", { status: "working", turns: 0, base: "" });
  await writeAgent(record);
  await git(repo, box.env, ["branch", record.branch, "HEAD"]);
  await fs.mkdir(record.worktree, { recursive: true });
  expect(await recover()).toEqual([expect.stringMatching(/undid the start of .*nothing was left behind/)]);
  expect((await git(repo, box.env, ["branch", "--list", record.branch])).trim()).toBe("");
  expect(await exists(record.worktree)).toBe(false);
});

test("an agent whose start finished (a base recorded) is marked interrupted, not undone", async () => {
  const record = agentRecord(repo, "ran", { status: "working", turns: 1 });
  await writeAgent(record);
  expect(await recover()).toEqual([expect.stringMatching(/^marked .*:ran interrupted/)]);
  expect(await exists(path.join(repo, ".offrun", "agents", "ran.json"))).toBe(true);
});
