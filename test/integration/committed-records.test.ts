import fs from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { listAgentsDetailed, readAgent, readChat } from "../../src/core/records/records.js";
import { recoverAgents } from "../../src/core/agents/recovery.js";
import { reserveAgent } from "../../src/core/agents/setup.js";
import { isAlive } from "../../src/core/foundation/pids.js";
import { rememberProject } from "../../src/core/foundation/project.js";
import { projectConfigSchema } from "../../src/core/foundation/model.js";
import { trackedStateFiles } from "../../src/core/git/tracked-state.js";
import { git, makeRepo, makeSandbox, runOffrun, useSandboxInProcess, type Sandbox } from "../helpers/offrun.js";
import { agentRecord } from "../helpers/records.js";

// Agent records and chat logs that git tracks came with the repository, not from this
// machine's Offrun, and are ignored. Someone commits `.offrun/agents/planted.json` (a "working"
// record with a stranger's pid, a worktree under the clone's .worktrees) and a chat log with a
// memory change, written for the path the clone will have; a `git clone` brings them in.

let box: Sandbox;
let clone: string;
const savedEnv = { ...process.env };

beforeEach(async () => {
  box = await makeSandbox("offrun-committed-");
  useSandboxInProcess(box);
  clone = path.join(await fs.realpath(box.dir), "mine");
  const planted = agentRecord(clone, "planted", { status: "working", pid: process.pid, turns: 1 });
  const chat = [
    { type: "user_message", at: new Date().toISOString(), turn: 1, text: "from the repository" },
    {
      type: "memory_change",
      at: new Date().toISOString(),
      turn: 1,
      id: "m1",
      file: "../../outside.txt",
      who: "own",
      diff: "",
    },
  ];
  const origin = await makeRepo(path.join(box.dir, "theirs"), box.env, {
    "README.md": "# theirs\n",
    ".offrun/agents/planted.json": JSON.stringify(planted, null, 2),
    ".offrun/chats/planted.jsonl": chat.map((line) => JSON.stringify(line)).join("\n") + "\n",
    ".offrun/chats/talker.jsonl": `${JSON.stringify(chat[0])}\n`,
  });
  await git(box.dir, box.env, ["clone", "-q", origin, clone]);
  // What `discard --force` of the planted record would delete.
  await fs.mkdir(path.join(clone, ".worktrees", "planted"), { recursive: true });
  await fs.writeFile(path.join(clone, ".worktrees", "planted", "keep.txt"), "the user's\n");
  await rememberProject(clone);
});
afterEach(async () => {
  process.env = { ...savedEnv };
  await box.cleanup();
});

test("a committed record is listed as unreadable, said why, and is no agent to read", async () => {
  const listing = await listAgentsDetailed(clone);
  expect(listing.agents).toEqual([]);
  expect(listing.unreadable).toEqual([
    { file: path.join(clone, ".offrun", "agents", "planted.json"), problem: expect.stringContaining("git tracks it") },
  ]);
  await expect(readAgent(clone, "planted")).rejects.toThrow("No agent named 'planted'");
  expect((await readChat(clone, "planted")).entries).toEqual([]);
});

test("the companion's recovery neither signals a committed record's pid nor rewrites the file", async () => {
  const stranger = execa("sleep", ["300"], { detached: true, reject: false, timeout: 300_000 });
  try {
    const file = path.join(clone, ".offrun", "agents", "planted.json");
    const record = JSON.parse(await fs.readFile(file, "utf8")) as Record<string, unknown>;
    await fs.writeFile(file, JSON.stringify({ ...record, pid: stranger.pid }, null, 2));
    await git(clone, box.env, ["commit", "-q", "-am", "a pid of this machine"]);
    const recovered = await recoverAgents({
      isRunning: () => false,
      scheduleWait: () => undefined,
      log: async () => undefined,
      update: async () => undefined,
    });
    expect(recovered).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(isAlive(stranger.pid!)).toBe(true);
    expect(await git(clone, box.env, ["status", "--porcelain", "--", ".offrun"])).toBe("");
  } finally {
    stranger.kill("SIGKILL");
  }
});

test("offrun ls shows no committed agent, and discard finds none to delete", async () => {
  const listed = await runOffrun(["ls", "--json"], { env: box.env, cwd: clone });
  expect(listed.exitCode).toBe(0);
  expect(listed.stdout).not.toContain('"planted"');
  const discarded = await runOffrun(["discard", "planted", "--force"], { env: box.env, cwd: clone });
  expect(discarded.exitCode).not.toBe(0);
  expect(discarded.stderr).toContain("No agent named 'planted'");
  expect(await fs.readFile(path.join(clone, ".worktrees", "planted", "keep.txt"), "utf8")).toBe("the user's\n");
});

test("a new agent never takes a name whose record or chat log the repository commits", async () => {
  const request = (name?: string) => ({
    root: clone,
    request: { project: clone, prompt: "talker", ...(name ? { name } : {}) },
    harness: "claude",
    login: "default",
    config: projectConfigSchema.parse({}),
    branches: new Set<string>(),
  });
  await expect(reserveAgent(request("talker"))).rejects.toThrow(/commits a record or chat log named 'talker'/);
  const record = await reserveAgent(request());
  expect(record.name).not.toBe("talker");
  expect(record.name).toMatch(/^talker/);
});

test("an index git writes as version 4 (paths compressed) is read through git", async () => {
  await git(clone, box.env, ["update-index", "--index-version", "4"]);
  expect([...(await trackedStateFiles(clone))].sort()).toEqual([
    ".offrun/agents/planted.json",
    ".offrun/chats/planted.jsonl",
    ".offrun/chats/talker.jsonl",
  ]);
  expect((await listAgentsDetailed(clone)).agents).toEqual([]);
});

test("a checkout that tracks nothing of Offrun's, or has no index yet, tracks nothing", async () => {
  const plain = await makeRepo(path.join(box.dir, "plain"), box.env);
  expect((await trackedStateFiles(plain)).size).toBe(0);
  const empty = path.join(box.dir, "empty");
  await fs.mkdir(empty);
  await git(empty, box.env, ["init", "-q"]);
  expect((await trackedStateFiles(empty)).size).toBe(0);
});
