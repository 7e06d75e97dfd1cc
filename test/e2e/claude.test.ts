import fs from "node:fs/promises";
import path from "node:path";
import { CLAUDE_BIN } from "../helpers/claude-env.js";
import { claudeWorld, type World } from "../helpers/e2e.js";
import { isAlive } from "../../src/core/foundation/pids.js";
import { eventually, git, runOffrun } from "../helpers/offrun.js";

// The real Claude Code CLI against the fake model server, driven through the real `offrun` CLI
// and companion, in a real git repository.

let world: World;
let box: World["box"];
let server: World["server"];
let repo: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  world = await claudeWorld("offrun-e2e-claude-", { "README.md": "# demo\n", "src/app.ts": "export {};\n" });
  ({ box, server, repo, env } = world);
});

afterAll(async () => {
  await world.close();
});

const offrun = (...args: string[]) => world.offrun(args);

function lastUserText(body: unknown): string {
  return JSON.stringify(body);
}

test("a Build turn writes a file in the agent's worktree only, and merge brings it to the main checkout", async () => {
  const worktree = path.join(repo, ".worktrees", "hello");
  server.script({ kind: "write_file", path: path.join(worktree, "hello.txt"), content: "hello from claude\n" });

  const started = await offrun("start", "--wait", "--name", "hello", "write hello.txt");
  expect(started.stderr).toBe("");
  expect(started).toSucceed();

  expect(await fs.readFile(path.join(worktree, "hello.txt"), "utf8")).toBe("hello from claude\n");
  await expect(fs.access(path.join(repo, "hello.txt"))).rejects.toThrow();

  const ls = await offrun("ls", "--json");
  const listing = JSON.parse(ls.stdout) as { agents: { name: string; status: string; branch: string }[] };
  expect(listing.agents).toEqual([expect.objectContaining({ name: "hello", status: "idle", branch: "offrun/hello" })]);

  const diff = await offrun("diff", "hello", "--json");
  expect(JSON.parse(diff.stdout).files).toEqual([expect.objectContaining({ path: "hello.txt", status: "added" })]);

  const merged = await offrun("merge", "hello");
  expect(merged).toSucceed();
  expect(await fs.readFile(path.join(repo, "hello.txt"), "utf8")).toBe("hello from claude\n");
  const branchLog = await git(repo, box.env, ["log", "--format=%s", "offrun/hello"]);
  expect(branchLog.split("\n")[0]).toBe("offrun: hello: write hello.txt");
  expect(await git(repo, box.env, ["rev-parse", "--abbrev-ref", "HEAD"])).toBe("main");
});

test("send resumes the same session, and the model receives the whole history", async () => {
  server.script({ kind: "text", text: "First answer about apples." });
  const first = await offrun("start", "--wait", "--name", "chat", "tell me about apples");
  expect(first).toSucceed();
  expect(first.stdout).toContain("First answer about apples.");

  const before = server.turnRequests().length;
  server.script({ kind: "text", text: "Second answer about pears." });
  const second = await offrun("send", "--wait", "chat", "now pears");
  expect(second).toSucceed();
  expect(second.stdout).toContain("Second answer about pears.");

  const resumed = server.turnRequests().slice(before);
  expect(resumed.length).toBeGreaterThan(0);
  const body = lastUserText(resumed[resumed.length - 1]!.body);
  expect(body).toContain("tell me about apples");
  expect(body).toContain("First answer about apples.");
  expect(body).toContain("now pears");

  const shown = JSON.parse((await offrun("show", "chat", "--json")).stdout) as {
    events: { type: string; turn: number }[];
    agent: { turns: number };
  };
  expect(shown.agent.turns).toBe(2);
  expect(shown.events.filter((e) => e.type === "turn_end").map((e) => e.turn)).toEqual([1, 2]);
  expect(shown.events.filter((e) => e.type === "turn_start")).toHaveLength(2);
});

test("a Planner turn changes nothing in the worktree, even when the model tries to write", async () => {
  const worktree = path.join(repo, ".worktrees", "plan");
  server.script({ kind: "write_file", path: path.join(worktree, "plan-output.txt"), content: "should not exist\n" });
  const result = await offrun("start", "--wait", "--mode", "plan", "--name", "plan", "how would you split app.ts?");
  expect(result).toSucceed();
  await expect(fs.access(path.join(worktree, "plan-output.txt"))).rejects.toThrow();
  expect(await git(worktree, box.env, ["status", "--porcelain"])).toBe("");
  const shown = JSON.parse((await offrun("show", "plan", "--json")).stdout) as {
    events: { type: string; level?: string }[];
  };
  expect(shown.events.some((e) => e.type === "notice" && e.level === "warning")).toBe(false);
});

test("killing the companion mid-turn loses no logged line, and send resumes the session", async () => {
  server.script({ kind: "hang" });
  const started = await offrun("start", "--name", "crash", "a long task");
  expect(started).toSucceed();
  const chatFile = path.join(repo, ".offrun", "chats", "crash.jsonl");
  await eventually(
    async () => ((await fs.readFile(chatFile, "utf8")).includes('"type":"session"') ? true : undefined),
    30_000,
    "the session event",
  );
  const before = await fs.readFile(chatFile, "utf8");

  const pid = Number((await fs.readFile(path.join(box.offrunHome, "run", "companion.pid"), "utf8")).trim());
  process.kill(pid, "SIGKILL");
  await eventually(async () => (isAlive(pid) ? undefined : true), 10_000, "the companion's end");

  // Nothing carries the turn on now: the faces, which never start a companion to read, must not
  // go on showing it working.
  const listed = JSON.parse((await offrun("ls", "--json")).stdout) as {
    agents: { name: string; status: string; lastError?: string }[];
  };
  expect(listed.agents.find((a) => a.name === "crash")).toMatchObject({
    status: "failed",
    lastError: expect.stringContaining("the companion is not running"),
  });
  expect((await offrun("show", "crash")).stdout).toContain("Interrupted: the companion is not running");
  expect((await offrun("companion", "status")).stdout).toContain("not running");

  server.script({ kind: "text", text: "Picked up where we left off." });
  const resumed = await offrun("send", "--wait", "crash", "please continue");
  expect(resumed).toSucceed();
  expect(resumed.stdout).toContain("Picked up where we left off.");

  const after = await fs.readFile(chatFile, "utf8");
  expect(after.startsWith(before)).toBe(true);
  const events = after
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { type: string; outcome?: string; turn: number });
  expect(events.filter((e) => e.type === "turn_end").map((e) => [e.turn, e.outcome])).toEqual([
    [1, "interrupted"],
    [2, "completed"],
  ]);
  const lastRequest = JSON.stringify(server.turnRequests().at(-1)!.body);
  expect(lastRequest).toContain("a long task");
  expect(lastRequest).toContain("please continue");
});

test("offrun with no arguments shows the installed CLIs, their versions and every project's agents", async () => {
  const result = await runOffrun(["--json"], { env, cwd: box.dir });
  expect(result).toSucceed();
  const dashboard = JSON.parse(result.stdout) as {
    clis: { id: string; binary?: string; version?: string; installHint: string }[];
    projects: { root: string; agents: { name: string }[] }[];
  };
  expect(dashboard.clis.find((c) => c.id === "claude")).toMatchObject({
    binary: CLAUDE_BIN,
    version: expect.stringContaining("2.1.332"),
  });
  const project = dashboard.projects.find((p) => p.root === repo);
  expect(project?.agents.map((a) => a.name)).toEqual(expect.arrayContaining(["hello", "chat", "plan", "crash"]));

  const text = await runOffrun([], { env, cwd: box.dir });
  expect(text.stdout).toContain("Claude Code");
  expect(text.stdout).toContain(repo);
});

test("a turn that ends by asking the user is a question: the agent needs you, and answer is the next turn", async () => {
  server.script({ kind: "text", text: "I split the module.\n\nShould I also update the README?" });
  const asked = await offrun("start", "--wait", "--name", "asks", "split the module");
  expect(asked).toSucceed();
  expect(asked.stdout).toContain("? Should I also update the README?");
  const ls = JSON.parse((await offrun("ls", "--json")).stdout) as { agents: { name: string; status: string }[] };
  expect(ls.agents.find((a) => a.name === "asks")?.status).toBe("needs-you");

  server.script({ kind: "text", text: "Done, README updated." });
  const before = server.turnRequests().length;
  expect(await offrun("answer", "asks", "yes please")).toSucceed();
  const done = await eventually(async () => {
    const shown = JSON.parse((await offrun("show", "asks", "--json")).stdout) as {
      agent: { status: string; turns: number };
    };
    return shown.agent.turns === 2 && shown.agent.status === "idle" ? shown : undefined;
  });
  expect(done.agent.status).toBe("idle");
  expect(JSON.stringify(server.turnRequests().slice(before).at(-1)!.body)).toContain("yes please");
});
