import fs from "node:fs/promises";
import path from "node:path";
import { git, makeRepo, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";
import { agentRecord } from "../helpers/records.js";
import { fixture, writeStubCli } from "../helpers/stub-cli.js";

// Advice Offrun prints is followed here as a user would, and must do what it says and lose nothing.
// Before: a start over a taken name advised `git branch -D offrun/<name>`, which deletes that
// branch's unmerged commits; a corrupt agent record advised moving it aside, which loses the agent.

let box: Sandbox;
let repo: string;
let env: NodeJS.ProcessEnv;
const offrun = (...args: string[]) => runOffrun(args, { env, cwd: repo });

beforeAll(async () => {
  box = await makeSandbox("offrun-advice-");
  repo = await makeRepo(path.join(box.dir, "repo"), box.env);
  const claude = await writeStubCli(path.join(box.dir, "stub", "claude"), {
    replay: fixture("claude", "2.1.332", "text-reply"),
  });
  env = { ...box.env, OFFRUN_CLAUDE_BIN: claude };
});
afterAll(async () => {
  await offrun("companion", "stop");
  await box.cleanup();
});

test("a start over a taken branch advises another name and a look, never a delete; following it loses nothing", async () => {
  // Someone's work on a branch of Offrun's name.
  await git(repo, box.env, ["switch", "-q", "-c", "offrun/taken"]);
  await fs.writeFile(path.join(repo, "theirs.txt"), "unmerged work\n");
  await git(repo, box.env, ["add", "theirs.txt"]);
  await git(repo, box.env, ["commit", "-q", "-m", "someone's unmerged work"]);
  const theirs = (await git(repo, box.env, ["rev-parse", "HEAD"])).trim();
  await git(repo, box.env, ["switch", "-q", "main"]);

  const refused = await offrun("start", "--name", "taken", "a task");
  expect(refused.exitCode).not.toBe(0);
  expect(refused.stderr).not.toContain("branch -D");
  expect(refused.stderr).toContain("--name");
  const look = /`(git log --oneline -5 offrun\/taken)`/.exec(refused.stderr)?.[1];
  expect(look).toBeDefined();
  // The look it advises shows the work, and another name starts.
  expect(await git(repo, box.env, look!.split(" ").slice(1))).toContain("someone's unmerged work");
  expect(await offrun("start", "--name", "taken-2", "a task")).toSucceed();
  expect((await git(repo, box.env, ["rev-parse", "offrun/taken"])).trim()).toBe(theirs);
});

test("a corrupt agent record says to fix it in place, and fixing the field it names brings the agent back", async () => {
  const file = path.join(repo, ".offrun", "agents", "broken.json");
  const record = agentRecord(repo, "broken");
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, JSON.stringify({ ...record, status: "exploded" }));
  const listed = await offrun("ls");
  const said = `${listed.stdout}\n${listed.stderr}`;
  expect(said).toContain("status");
  expect(said).toContain("Do not move it aside");
  expect(said).not.toContain("Offrun recreates what it owns");
  // Following it: the field fixed where the file is.
  await fs.writeFile(file, JSON.stringify({ ...record, status: "idle" }));
  const fixed = await offrun("ls", "--json");
  expect(fixed).toSucceed();
  expect(fixed.stdout).toContain('"broken"');
});

test("offrun trust in a repository without settings says there is nothing to trust, and advises nothing", async () => {
  const plain = await makeRepo(path.join(box.dir, "plain"), box.env);
  const said = await runOffrun(["trust"], { env, cwd: plain });
  expect(said).toSucceed();
  expect(said.stdout).toContain("has no .offrun/config.json: there is nothing to trust");
  expect(said.stdout).not.toContain("Not trusted yet");
  expect(said.stdout).not.toContain("offrun trust --yes");
});

test("a login named for another CLI says whose it is and names the flags that pick it", async () => {
  const codex = await writeStubCli(path.join(box.dir, "stub", "codex"), {
    replay: fixture("codex", "0.171.0", "text"),
  });
  const withCodex = { ...env, OFFRUN_CODEX_BIN: codex };
  const add = await runOffrun(["logins", "add", "codex", "main"], { env: withCodex, cwd: repo });
  expect(add).toSucceed();
  const wrong = await runOffrun(["start", "--login", "main", "--name", "wrong-cli", "a task"], {
    env: withCodex,
    cwd: repo,
  });
  expect(wrong.exitCode).not.toBe(0);
  expect(wrong.stderr).toContain("'main' is a login of Codex, not of Claude Code");
  expect(wrong.stderr).not.toContain("offrun logins add claude main");
  const advised = /`(--harness codex --login main)`/.exec(wrong.stderr)?.[1];
  expect(advised).toBe("--harness codex --login main");
});

test("a CLI that is not installed is said to be so first, and its sign-in advice fails rather than succeeds", async () => {
  // Twice: the first start's sign-in check marks the login signed out, which the second one read first.
  await offrun("start", "--harness", "gemini", "--name", "no-gemini", "a task");
  const started = await offrun("start", "--harness", "gemini", "--name", "no-gemini", "a task");
  expect(started.exitCode).not.toBe(0);
  expect(started.stderr).toContain("Gemini CLI (`gemini`) is not installed");
  expect(started.stderr).toContain("npm install -g @google/gemini-cli");
  expect(started.stderr).not.toContain("no Gemini CLI login");
  const signIn = await offrun("logins", "login", "gemini", "default");
  expect(signIn.exitCode).not.toBe(0);
  expect(signIn.stderr).toContain("Gemini CLI is not installed");
});

test("a --login while accounts.json does not read says to fix the file, not to add a login that cannot be added", async () => {
  const accounts = path.join(box.offrunHome, "accounts.json");
  const before = await fs.readFile(accounts, "utf8").catch(() => undefined);
  await fs.writeFile(accounts, '{"version": 1, "accounts": [');
  try {
    const started = await offrun("start", "--login", "work", "--name", "on-work", "a task");
    expect(started.exitCode).not.toBe(0);
    expect(started.stderr).toContain("has no login 'work' that Offrun can read");
    expect(started.stderr).toContain("is not valid JSON");
    expect(started.stderr).not.toContain("offrun logins add claude work");
    expect(started.stderr).not.toContain("field");
  } finally {
    if (before === undefined) await fs.rm(accounts, { force: true });
    else await fs.writeFile(accounts, before);
  }
});
