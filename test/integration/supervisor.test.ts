import fs from "node:fs/promises";
import path from "node:path";
import { eventually, git, makeRepo, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";
import { fixture, writeStubCli } from "../helpers/stub-cli.js";

// The supervisor and companion with stand-in CLIs that replay recorded Claude streams: for what
// a real CLI will not do on demand (twenty at once, writing in Planner mode, a garbage line).

let box: Sandbox;
let counter = 0;

beforeAll(async () => {
  box = await makeSandbox("offrun-sup-");
});
afterAll(async () => {
  await box.cleanup();
});

/** A repository and an OFFRUN_HOME of its own, with a stub claude; the companion keeps the env it starts with. */
async function setup(stub: Parameters<typeof writeStubCli>[1]) {
  counter += 1;
  const repo = await makeRepo(path.join(box.dir, `repo-${counter}`), box.env);
  const bin = await writeStubCli(path.join(box.dir, `stub-${counter}`, "claude"), stub);
  const env = { ...box.env, OFFRUN_HOME: path.join(box.dir, `oh-${counter}`), OFFRUN_CLAUDE_BIN: bin };
  const offrun = (...args: string[]) => runOffrun(args, { env, cwd: repo });
  return { repo, bin, env, offrun };
}

test("twenty agents started at once get twenty worktrees, branches and ports, and no lock error", async () => {
  const { repo, offrun } = await setup({ replay: fixture("claude", "2.1.332", "text-reply") });
  const tasks = Array.from({ length: 20 }, (_, i) => `fix flaky test number ${i}`);
  const results = await Promise.all(tasks.map((task) => offrun("start", "--json", task)));
  for (const result of results) expect(result.stderr).toBe("");
  const names = results.map((r) => (JSON.parse(r.stdout) as { name: string }).name);
  expect(new Set(names).size).toBe(20);

  const listing = await eventually(
    async () => {
      const ls = JSON.parse((await offrun("ls", "--json")).stdout) as { agents: { status: string; port: number }[] };
      return ls.agents.every((a) => a.status === "idle") ? ls : undefined;
    },
    60_000,
    "all twenty turns to end",
  );
  expect(listing.agents).toHaveLength(20);
  expect(new Set(listing.agents.map((a) => a.port)).size).toBe(20);
  const worktrees = (await git(repo, box.env, ["worktree", "list", "--porcelain"])).match(/^worktree /gm) ?? [];
  expect(worktrees).toHaveLength(21);
  const branches = (await git(repo, box.env, ["branch", "--list", "offrun/*"])).trim().split("\n");
  expect(branches).toHaveLength(20);
});

test("a Planner turn that changes the worktree is flagged in the log and shown to the user", async () => {
  const { repo, offrun } = await setup({
    replay: fixture("claude", "2.1.332", "text-reply"),
    after: ['echo "sneaky" > "$PWD/sneaky.txt"'],
  });
  const result = await offrun("start", "--wait", "--mode", "plan", "--name", "planner", "plan the split");
  expect(result.stdout).toContain("Planner turn changed the worktree");
  expect(result.stdout).toContain("sneaky.txt");
  const chat = await fs.readFile(path.join(repo, ".offrun", "chats", "planner.jsonl"), "utf8");
  expect(chat).toContain('"level":"warning"');
});

test("the argv of each mode reaches the CLI: a live acceptEdits turn for Build, memory-only writes for Planner, resume on the next turn", async () => {
  const { bin, offrun } = await setup({ replay: fixture("claude", "2.1.332", "text-reply") });
  expect(await offrun("start", "--wait", "--name", "argv", "--", "-rf looks like an option")).toSucceed();
  expect(await offrun("send", "--wait", "argv", "again")).toSucceed();
  expect(await offrun("start", "--wait", "--mode", "plan", "--name", "argv-plan", "plan it")).toSucceed();
  const calls = (await fs.readFile(`${bin}.argv`, "utf8")).trim().split("\n");
  // A Planner that keeps memory runs in default mode with writes allowed only in its memory
  // folder: Claude 2.1.332's plan mode refuses every write, --add-dir folders included.
  expect(calls[2]).toContain("--permission-mode default");
  expect(calls[2]).toMatch(/--allowedTools Edit\(\/\/\S+\/\.offrun\/memory\/argv-plan\/\*\*\)/);
  expect(calls[0]).toContain("--permission-mode acceptEdits");
  // Build turns are live: the prompt goes to the CLI's stdin, so a '-' at its start cannot read as an option.
  expect(calls[0]).toMatch(
    /--session-id [0-9a-f-]{36} --add-dir \S+\/\.offrun\/memory\/argv --input-format stream-json --permission-prompt-tool stdio$/,
  );
  expect(calls[0]).not.toContain("-rf looks like an option");
  // A first turn's prompt starts with the project memory (several lines), then the user's message.
  expect(calls.slice(2).join("\n")).toMatch(/ -- ## Project memory\n[\s\S]*\n\nplan it$/);
  // The recorded stream names its own session id; the next turn resumes that one.
  expect(calls[1]).toContain("--resume 6becc817-faef-451a-9376-6ee42493e72b");
});

test("a line that is not JSON becomes a readable error event and the turn still ends", async () => {
  const { repo, offrun } = await setup({
    replay: fixture("claude", "2.1.332", "text-reply"),
    before: ["echo 'Segmentation fault (core dumped) {not json'"],
  });
  const result = await offrun("start", "--wait", "--name", "garbage", "hello");
  const chat = (await fs.readFile(path.join(repo, ".offrun", "chats", "garbage.jsonl"), "utf8")).trim().split("\n");
  const events = chat.map((line) => JSON.parse(line) as { type: string; kind?: string; message?: string });
  expect(events.find((e) => e.type === "error")).toMatchObject({ kind: "unreadable_output" });
  expect(events.at(-1)!.type).toBe("turn_end");
  expect(result.stdout).toContain("Segmentation fault");
});

test("stop ends the CLI's whole process group and the turn reads as stopped", async () => {
  const { repo, bin, offrun } = await setup({
    replay: fixture("claude", "2.1.332", "text-reply").replace("text-reply", "resume-turn1"),
    before: [`sleep 300 & echo $! > '${path.join(box.dir, "child.pid")}'`, "sleep 300"],
  });
  expect(await offrun("start", "--name", "sleepy", "take your time")).toSucceed();
  const childPid = Number(
    await eventually(async () => (await fs.readFile(path.join(box.dir, "child.pid"), "utf8")).trim() || undefined),
  );
  const stopped = await offrun("stop", "sleepy", "--json");
  expect(JSON.parse(stopped.stdout)).toMatchObject({ name: "sleepy", status: "idle" });
  await eventually(
    async () => {
      try {
        process.kill(childPid, 0);
        return undefined;
      } catch {
        return true;
      }
    },
    10_000,
    "the CLI's child to end",
  );
  const chat = await fs.readFile(path.join(repo, ".offrun", "chats", "sleepy.jsonl"), "utf8");
  expect(chat).toContain('"outcome":"cancelled"');
  expect(await fs.readFile(`${bin}.argv`, "utf8")).toContain("--session-id");
  expect(chat).toContain('"text":"take your time"');
});
