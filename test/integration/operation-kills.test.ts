import fs from "node:fs/promises";
import path from "node:path";
import { readAgent, readChat, writeAgent } from "../../src/core/records/records.js";
import { readLoginsFile } from "../../src/core/logins/logins-file.js";
import { addLogin } from "../../src/core/logins/changes.js";
import { rememberProject } from "../../src/core/foundation/project.js";
import type { AgentRecord } from "../../src/core/foundation/model.js";
import {
  eventually,
  git,
  makeRepo,
  makeSandbox,
  runOffrun,
  useSandboxInProcess,
  type Sandbox,
} from "../helpers/offrun.js";
import { agentRecord } from "../helpers/records.js";

// The companion (and the CLI, which does the change by itself once the companion is gone) killed
// with SIGKILL at the fault point inside a merge, a discard, a login add, rename or removal; the
// next companion finishes or undoes it, so that records, branches, worktrees, accounts.json and the
// logins' homes agree. Broke: the merge stayed unrecorded, the discarded agent kept a record naming
// a missing worktree, the add left a home no login names, the removal left the home --purge asked
// to delete, and the rename left the agents on a login that no longer existed.

let box: Sandbox;
let repo: string;
let env: NodeJS.ProcessEnv;
const savedEnv = { ...process.env };
beforeEach(async () => {
  box = await makeSandbox("offrun-kills-");
  useSandboxInProcess(box);
  env = box.env;
  repo = await makeRepo(path.join(await fs.realpath(box.dir), "app"), box.env);
  await rememberProject(repo);
  await fs.mkdir(path.join(repo, ".offrun", "chats"), { recursive: true });
});
afterEach(async () => {
  await runOffrun(["companion", "stop"], { env });
  process.env = { ...savedEnv };
  await box.cleanup();
});

const exists = (file: string) =>
  fs.access(file).then(
    () => true,
    () => false,
  );

/** Runs `args` with the companion dying at `fault` (and the CLI too, if it gets there), then starts a companion without it. */
async function killedAt(fault: string, args: string[]): Promise<void> {
  const faulty = { ...env, OFFRUN_FAULT: fault };
  expect(await runOffrun(["companion", "start"], { env: faulty, cwd: repo })).toSucceed();
  // Fails, or succeeds when the CLI, doing it by itself once the companion is gone, finishes it.
  await runOffrun(args, { env: faulty, cwd: repo });
  await eventually(
    async () => ((await runOffrun(["companion", "status"], { env })).exitCode === 3 ? true : undefined),
    20_000,
    "the companion to be gone",
  );
  expect(await runOffrun(["companion", "start"], { env, cwd: repo })).toSucceed();
}

async function agentWithWork(name: string): Promise<AgentRecord> {
  const base = (await git(repo, box.env, ["rev-parse", "HEAD"])).trim();
  const record = agentRecord(repo, name, { base });
  await git(repo, box.env, ["worktree", "add", "-q", "-b", record.branch, "--", record.worktree, base]);
  await fs.writeFile(path.join(record.worktree, `${name}.txt`), "work\n");
  await git(record.worktree, box.env, ["add", "-A"]);
  await git(record.worktree, box.env, ["commit", "-q", "-m", `work of ${name}`]);
  await writeAgent(record);
  return record;
}

const pendingLogins = () => fs.readdir(path.join(box.offrunHome, "pending-logins")).catch(() => []);

test("killed after git merged, the next companion records the merge", async () => {
  await agentWithWork("m");
  await killedAt("merge:KILL", ["merge", "m"]);
  await eventually(async () => (await readAgent(repo, "m")).mergedAt, 20_000, "the merge to be recorded");
  expect((await git(repo, box.env, ["branch", "--merged", "HEAD", "--list", "offrun/m"])).trim()).toContain("offrun/m");
  const notices = (await readChat(repo, "m")).entries.filter((e) => e.type === "notice");
  expect(notices.at(-1)).toEqual(expect.objectContaining({ message: expect.stringContaining("is merged into main") }));
}, 90_000);

test("killed after the worktree was removed, the next companion finishes the discard", async () => {
  const record = await agentWithWork("d");
  await killedAt("discard:KILL", ["discard", "d", "--force"]);
  await eventually(
    async () => ((await readAgent(repo, "d")).status === "done" ? true : undefined),
    20_000,
    "the discard to be finished",
  );
  expect(await exists(record.worktree)).toBe(false);
  expect(await git(repo, box.env, ["worktree", "list"])).not.toContain(".worktrees");
}, 90_000);

test("killed after a login's home was made, the next companion removes the home no login names", async () => {
  const home = path.join(box.offrunHome, "accounts", "claude", "work");
  await killedAt("login:KILL", ["logins", "add", "claude", "work", "--no-login"]);
  await eventually(
    async () => ((await pendingLogins()).length === 0 ? true : undefined),
    20_000,
    "no login change left",
  );
  const listed = (await readLoginsFile(env)).accounts.some((a) => a.label === "work");
  expect({ listed, home: await exists(home) }).toEqual({ listed: false, home: false });
}, 90_000);

test("killed after accounts.json has the new name, the next companion carries the rename to the agents", async () => {
  await addLogin({ harness: "claude", label: "a" });
  await writeAgent(agentRecord(repo, "on-a", { account: "a" }));
  await killedAt("login:KILL", ["logins", "rename", "claude", "a", "b"]);
  await eventually(
    async () => ((await readAgent(repo, "on-a")).account === "b" ? true : undefined),
    20_000,
    "the agent to follow the rename",
  );
  expect((await readLoginsFile(env)).accounts.map((a) => a.label)).toEqual(["b"]);
  expect(await pendingLogins()).toEqual([]);
}, 90_000);

test("killed after accounts.json dropped a login removed with --purge, the next companion deletes its home", async () => {
  const login = await addLogin({ harness: "claude", label: "old" });
  await fs.writeFile(path.join(login.home, "sessions.json"), "{}");
  await killedAt("login:KILL", ["logins", "rm", "claude", "old", "--purge"]);
  await eventually(async () => ((await exists(login.home)) ? undefined : true), 20_000, "the home to be deleted");
  expect((await readLoginsFile(env)).accounts).toEqual([]);
  expect(await pendingLogins()).toEqual([]);
  const log = await fs.readFile(path.join(box.offrunHome, "companion.log"), "utf8");
  expect(log).toContain("finished removing login 'old' of claude");
}, 90_000);
